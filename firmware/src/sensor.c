#include "sensor.h"
#include "proto.h"

static void push(struct sensor *s, const struct sensor_event *ev)
{
    uint8_t slot;
    if (s->q_count == SENSOR_QUEUE) /* the main loop drains every ms: cannot happen */
        return;
    slot = (uint8_t)((s->q_head + s->q_count) % SENSOR_QUEUE);
    s->queue[slot] = *ev;
    s->q_count++;
}

static void emit(struct sensor *s, uint8_t type, uint8_t code, uint8_t reason, uint16_t detail)
{
    struct sensor_event ev;
    ev.type = type;
    ev.code = code;
    ev.confidence = 0;
    ev.pack = s->last_pack;
    ev.flags = 0;
    ev.reason = reason;
    ev.detail = detail;
    push(s, &ev);
}

static void add_code(struct sensor *s, uint8_t code, uint8_t conf, uint8_t pack);

/* Returns 1 when the debounced state changed. */
static uint8_t debounce(struct debounced *d, uint8_t raw, uint32_t now, uint32_t ms)
{
    if (raw != d->raw) {
        d->raw = raw;
        d->since = now;
    }
    if (d->raw != d->state && (uint32_t)(now - d->since) >= ms) {
        d->state = d->raw;
        return 1;
    }
    return 0;
}

void sensor_init(struct sensor *s, uint32_t now, uint8_t pack_present)
{
    uint8_t *p = (uint8_t *)s;
    size_t i;
    for (i = 0; i < sizeof *s; i++)
        p[i] = 0;
    s->beam.since = s->button.since = s->pack_switch.since = now;
    s->pack_switch.state = s->pack_switch.raw = pack_present ? 1u : 0u;
    s->double_feed_ms = SENSOR_DOUBLE_FEED_MS;
    s->jam_ms = SENSOR_JAM_MS;
}

static uint8_t take_kitty(struct sensor *s)
{
    uint8_t f = s->kitty_armed ? FLAG_KITTY : 0u;
    s->kitty_armed = 0;
    return f;
}

static void finish_passage(struct sensor *s)
{
    uint32_t duration = s->passage_end - s->passage_start;
    uint8_t i, expected = 1;
    struct sensor_event ev;
    if (s->codes >= 2)
        emit(s, SE_DOUBLE_FEED, CARD_NONE, 0, 2);
    else if (duration > s->double_feed_ms && !s->jammed)
        expected = 2;
    for (i = 0; i < s->codes; i++) {
        ev.type = SE_CARD;
        ev.code = s->code[i];
        ev.confidence = s->conf[i];
        ev.pack = s->pack[i];
        ev.flags = take_kitty(s);
        ev.reason = 0;
        ev.detail = 0;
        push(s, &ev);
        s->dealt++;
    }
    if (s->codes < expected) {
        ev.type = SE_UNREADABLE;
        ev.code = CARD_NONE;
        ev.confidence = (uint8_t)(expected - s->codes); /* count of cards */
        ev.pack = s->last_pack;
        ev.flags = take_kitty(s);
        ev.reason = expected == 2 ? UNREAD_DOUBLE_FEED : (s->bad_line ? UNREAD_LOW_CONFIDENCE : UNREAD_NO_READ);
        ev.detail = 0;
        push(s, &ev);
        s->dealt = (uint16_t)(s->dealt + expected - s->codes);
    }
    s->in_passage = s->finishing = s->jammed = s->codes = s->bad_line = 0;
}

void sensor_step(struct sensor *s, uint32_t now, uint8_t beam_blocked, uint8_t button,
                 uint8_t pack_present)
{
    if (debounce(&s->beam, beam_blocked ? 1u : 0u, now, SENSOR_DEBOUNCE_MS)) {
        if (s->beam.state) {
            if (s->finishing) /* next card before the grace ran out: close the old one */
                finish_passage(s);
            s->in_passage = 1;
            s->passage_start = s->beam.since;
            if (s->early && ((uint32_t)(s->passage_start - s->early_t) <= SENSOR_READ_GRACE_MS ||
                             (uint32_t)(s->early_t - s->passage_start) < 0x80000000u))
                add_code(s, s->early_code, s->early_conf, s->early_pack);
            s->early = 0;
        } else if (s->in_passage) {
            s->finishing = 1;
            s->passage_end = s->beam.since;
        }
    }
    if (s->in_passage && !s->finishing && !s->jammed &&
        (uint32_t)(now - s->passage_start) >= s->jam_ms) {
        s->jammed = 1;
        emit(s, SE_JAM, CARD_NONE, 0, (uint16_t)s->jam_ms);
    }
    if (s->finishing && (uint32_t)(now - s->passage_end) >= SENSOR_READ_GRACE_MS)
        finish_passage(s);
    if (debounce(&s->button, button ? 1u : 0u, now, SENSOR_BUTTON_DEBOUNCE_MS) && s->button.state)
        s->kitty_armed = (uint8_t)!s->kitty_armed;
    if (debounce(&s->pack_switch, pack_present ? 1u : 0u, now, SENSOR_PACK_DEBOUNCE_MS)) {
        if (s->pack_switch.state) {
            s->dealt = 0;
            emit(s, SE_LOADED, CARD_NONE, 0, 0);
        } else {
            emit(s, SE_EMPTY, CARD_NONE, 0, s->dealt);
        }
    }
}

static void add_code(struct sensor *s, uint8_t code, uint8_t conf, uint8_t pack)
{
    s->last_pack = pack;
    if (s->codes < SENSOR_MAX_CODES) {
        s->code[s->codes] = code;
        s->conf[s->codes] = conf;
        s->pack[s->codes] = pack;
        s->codes++;
    }
}

static void reader_line(struct sensor *s, uint32_t now)
{
    /* "<card>[ <conf>][ P<pack>]" */
    uint8_t i = 0, start, code, conf = 100, pack = s->last_pack;
    while (i < s->line_len && s->line[i] == ' ')
        i++;
    start = i;
    while (i < s->line_len && s->line[i] != ' ')
        i++;
    code = card_parse(s->line + start, (size_t)(i - start));
    while (i < s->line_len) {
        uint16_t v = 0;
        uint8_t is_pack = 0, digits = 0;
        while (i < s->line_len && s->line[i] == ' ')
            i++;
        if (i < s->line_len && (s->line[i] == 'P' || s->line[i] == 'p')) {
            is_pack = 1;
            i++;
        }
        while (i < s->line_len && s->line[i] >= '0' && s->line[i] <= '9') {
            v = (uint16_t)(v * 10 + (uint16_t)(s->line[i] - '0'));
            digits++;
            i++;
        }
        if (!digits) {
            while (i < s->line_len && s->line[i] != ' ')
                i++;
            continue;
        }
        if (is_pack)
            pack = (uint8_t)(v > 255 ? 255 : v);
        else
            conf = (uint8_t)(v > 100 ? 100 : v);
    }
    s->line_len = 0;
    if (!s->in_passage) {
        /* Maybe the beam has not settled yet: keep it for READ_GRACE_MS. */
        s->early = code != CARD_NONE;
        s->early_code = code;
        s->early_conf = conf;
        s->early_pack = pack;
        s->early_t = now;
        return;
    }
    if (code == CARD_NONE) {
        s->bad_line = 1;
        return;
    }
    add_code(s, code, conf, pack);
}

void sensor_reader_byte(struct sensor *s, uint32_t now, uint8_t byte)
{
    if (byte == '\n' || byte == '\r') {
        if (s->line_len)
            reader_line(s, now);
        return;
    }
    if (s->line_len < sizeof s->line)
        s->line[s->line_len++] = (char)byte;
}

uint8_t sensor_pop(struct sensor *s, struct sensor_event *ev)
{
    if (!s->q_count)
        return 0;
    *ev = s->queue[s->q_head];
    s->q_head = (uint8_t)((s->q_head + 1) % SENSOR_QUEUE);
    s->q_count--;
    return 1;
}

uint8_t sensor_status(const struct sensor *s)
{
    uint8_t st = 0;
    if (!s->pack_switch.state)
        st |= STATUS_EMPTY;
    if (s->jammed)
        st |= STATUS_JAMMED;
    if (s->kitty_armed)
        st |= STATUS_KITTY_ARMED;
    return st;
}
