/* Shoe wire protocol (see PROTOCOL.md): frame packing, CRC-16/CCITT-FALSE,
 * COBS framing and a stream decoder that resynchronises on 0x00.
 * Portable C99, no allocation: the same file builds for the host tests and
 * for the AVR. The Python twin is tablecam/shoe/protocol.py; both are checked
 * against test-vectors.json. */
#ifndef SHOE_PROTO_H
#define SHOE_PROTO_H

#include <stdint.h>
#include <stddef.h>

#define PROTO_VERSION 1u
#define PROTO_MAX_PAYLOAD 32u
#define PROTO_HEADER_LEN 8u
#define PROTO_MIN_RAW (PROTO_HEADER_LEN + 2u)
#define PROTO_MAX_RAW (PROTO_HEADER_LEN + PROTO_MAX_PAYLOAD + 2u)
#define PROTO_MAX_ENCODED (PROTO_MAX_RAW + PROTO_MAX_RAW / 254u + 1u)
#define PROTO_MAX_WIRE (PROTO_MAX_ENCODED + 1u) /* with the 0x00 delimiter */

enum msg_type {
    MSG_HELLO = 0x01,
    MSG_CARD = 0x02,
    MSG_CARD_UNREADABLE = 0x03,
    MSG_SHOE_EMPTY = 0x04,
    MSG_SHOE_LOADED = 0x05,
    MSG_HEARTBEAT = 0x06,
    MSG_ERROR = 0x07,
    MSG_ACK = 0x81,
    MSG_RESEND = 0x82,
    MSG_RESET = 0x83,
    MSG_SET_TIME = 0x84
};

enum error_code {
    ERR_JAM = 1,
    ERR_DOUBLE_FEED = 2,
    ERR_SENSOR_FAULT = 3,
    ERR_RX_CRC = 4,
    ERR_RESEND_UNAVAILABLE = 5,
    ERR_RING_OVERFLOW = 6,
    ERR_BAD_FRAME = 7
};

enum unreadable_reason { UNREAD_NO_READ = 1, UNREAD_LOW_CONFIDENCE = 2, UNREAD_DOUBLE_FEED = 3 };

#define FLAG_KITTY 0x01u
#define FLAG_FACE_UP 0x02u
#define STATUS_EMPTY 0x01u
#define STATUS_JAMMED 0x02u
#define STATUS_KITTY_ARMED 0x04u

/* Decode results; the names match the Python FrameError reasons. */
enum proto_result {
    PROTO_OK = 0,
    PROTO_ERR_COBS,
    PROTO_ERR_SHORT,
    PROTO_ERR_LONG,
    PROTO_ERR_CRC,
    PROTO_ERR_VERSION,
    PROTO_ERR_LENGTH
};

struct frame {
    uint8_t version;
    uint8_t type;
    uint16_t seq;
    uint32_t time_ms;
    uint8_t len;
    uint8_t payload[PROTO_MAX_PAYLOAD];
};

uint16_t crc16_ccitt(const uint8_t *data, size_t len, uint16_t crc);
#define CRC16_INIT 0xFFFFu

/* COBS: return the output length; out must hold len + len/254 + 1 bytes. */
size_t cobs_encode(const uint8_t *in, size_t len, uint8_t *out);
/* Return the decoded length, or -1 on a malformed block. out holds len bytes. */
int cobs_decode(const uint8_t *in, size_t len, uint8_t *out);

/* Header + payload + CRC into raw (PROTO_MAX_RAW bytes); returns its length. */
size_t frame_pack(const struct frame *f, uint8_t *raw);
/* raw -> COBS + 0x00 into wire (PROTO_MAX_WIRE bytes); returns its length. */
size_t frame_wire_from_raw(const uint8_t *raw, size_t raw_len, uint8_t *wire);
size_t frame_encode(const struct frame *f, uint8_t *wire);
enum proto_result frame_unpack(const uint8_t *raw, size_t len, struct frame *f);
enum proto_result frame_decode(const uint8_t *body, size_t len, struct frame *f);
const char *proto_result_name(enum proto_result r);
int proto_payload_len(uint8_t type); /* exact payload length in version 1, -1 = unknown type */

/* Stream decoder: feed bytes one at a time. */
struct stream_decoder {
    uint8_t buf[PROTO_MAX_ENCODED];
    uint8_t len;
    uint8_t overlong;
    uint16_t frames;
    uint16_t errors;
};

enum stream_event { STREAM_NONE = 0, STREAM_FRAME, STREAM_ERROR };

void stream_init(struct stream_decoder *d);
/* Returns STREAM_FRAME with *f filled, STREAM_ERROR with *err set, or STREAM_NONE. */
enum stream_event stream_feed(struct stream_decoder *d, uint8_t byte, struct frame *f,
                              enum proto_result *err);

/* Little-endian helpers. */
void put_u16(uint8_t *p, uint16_t v);
void put_u32(uint8_t *p, uint32_t v);
uint16_t get_u16(const uint8_t *p);
uint32_t get_u32(const uint8_t *p);

/* Card codes: suit*13 + rank (S H D C; A K Q J T 9 .. 2), jokers 52..54. */
#define CARD_JOKER 52u
#define CARD_NONE 0xFFu
/* Parse "SA", "HT", "h10", "JK" -> code; returns CARD_NONE if not a card. */
uint8_t card_parse(const char *text, size_t len);

#endif
