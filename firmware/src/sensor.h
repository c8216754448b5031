/* Card-sensor state machine: turns raw levels (exit-slot light barrier,
 * KITTY button, pack-follower switch) and the card reader's text lines into
 * shoe events. Pure logic with time passed in, so the unit tests drive it
 * with exact millisecond timelines.
 *
 * A card passage is the interval the (debounced) beam is interrupted. The
 * reader (optical index reader or barcode scanner on its own UART) sends one
 * ASCII line per card it recognises:  "<card>[ <confidence 0-100>][ P<pack>]\n",
 * e.g. "SA 97 P1". Lines arriving during a passage, or up to READ_GRACE_MS
 * before (the reader can be quicker than the beam's debounce) or after it,
 * belong to it; a read with no card near the slot is ignored.
 *   - 1 code           -> CARD
 *   - 0 codes          -> CARD_UNREADABLE (no read), or (low confidence) if the
 *                         reader sent a line it could not parse
 *   - 2 codes          -> two CARDs and ERROR DOUBLE_FEED (two cards left as one)
 *   - a passage longer than double_feed_ms with fewer than 2 codes
 *                      -> the codes read, then CARD_UNREADABLE(DOUBLE_FEED) for
 *                         the card the reader missed
 *   - beam blocked longer than jam_ms -> ERROR JAM once (status jammed); the
 *                         passage is still finished normally when it clears.
 */
#ifndef SHOE_SENSOR_H
#define SHOE_SENSOR_H

#include <stdint.h>

#define SENSOR_DEBOUNCE_MS 3u
#define SENSOR_BUTTON_DEBOUNCE_MS 20u
#define SENSOR_PACK_DEBOUNCE_MS 50u
#define SENSOR_READ_GRACE_MS 20u
#define SENSOR_DOUBLE_FEED_MS 400u
#define SENSOR_JAM_MS 1500u
#define SENSOR_MAX_CODES 2u
#define SENSOR_QUEUE 8u

enum sensor_event_type {
    SE_CARD = 1,
    SE_UNREADABLE,
    SE_DOUBLE_FEED,   /* informational: two codes in one passage */
    SE_JAM,
    SE_LOADED,
    SE_EMPTY
};

struct sensor_event {
    uint8_t type;
    uint8_t code;       /* card code (SE_CARD) */
    uint8_t confidence;
    uint8_t pack;
    uint8_t flags;      /* FLAG_KITTY ... */
    uint8_t reason;     /* SE_UNREADABLE: unreadable_reason */
    uint16_t detail;    /* SE_JAM: ms blocked; SE_EMPTY: cards dealt */
};

struct debounced {
    uint8_t state;
    uint8_t raw;
    uint32_t since;
};

struct sensor {
    struct debounced beam, button, pack_switch;
    uint8_t in_passage, finishing, jammed, kitty_armed, bad_line;
    uint32_t passage_start, passage_end;
    uint8_t codes, code[SENSOR_MAX_CODES], conf[SENSOR_MAX_CODES], pack[SENSOR_MAX_CODES];
    uint8_t early, early_code, early_conf, early_pack; /* a read just before the beam broke */
    uint32_t early_t;
    char line[16];
    uint8_t line_len;
    uint16_t dealt;
    uint8_t last_pack;
    uint16_t double_feed_ms, jam_ms;
    struct sensor_event queue[SENSOR_QUEUE];
    uint8_t q_head, q_count;
};

void sensor_init(struct sensor *s, uint32_t now, uint8_t pack_present);
void sensor_step(struct sensor *s, uint32_t now, uint8_t beam_blocked, uint8_t button,
                 uint8_t pack_present);
void sensor_reader_byte(struct sensor *s, uint32_t now, uint8_t byte);
/* Pop the next event; returns 0 when there is none. */
uint8_t sensor_pop(struct sensor *s, struct sensor_event *ev);
uint8_t sensor_status(const struct sensor *s);

#endif
