#include "proto.h"

uint16_t crc16_ccitt(const uint8_t *data, size_t len, uint16_t crc)
{
    /* Bitwise on purpose: no 512-byte table in an ATmega's flash/RAM. */
    size_t i;
    uint8_t b;
    for (i = 0; i < len; i++) {
        crc ^= (uint16_t)((uint16_t)data[i] << 8);
        for (b = 0; b < 8; b++)
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    }
    return crc;
}

size_t cobs_encode(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t o = 1, code_at = 0, i;
    uint8_t code = 1;
    for (i = 0; i < len; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = in[i];
            if (++code == 0xFF) {
                out[code_at] = code;
                code_at = o++;
                code = 1;
            }
        }
    }
    out[code_at] = code;
    return o;
}

int cobs_decode(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t i = 0, o = 0, end, k;
    while (i < len) {
        uint8_t code = in[i];
        if (code == 0)
            return -1;
        end = i + code;
        if (end > len)
            return -1;
        for (k = i + 1; k < end; k++)
            out[o++] = in[k];
        i = end;
        if (code != 0xFF && i < len)
            out[o++] = 0;
    }
    return (int)o;
}

void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

uint16_t get_u16(const uint8_t *p) { return (uint16_t)(p[0] | ((uint16_t)p[1] << 8)); }

uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

size_t frame_pack(const struct frame *f, uint8_t *raw)
{
    uint8_t n = f->len > PROTO_MAX_PAYLOAD ? PROTO_MAX_PAYLOAD : f->len;
    uint8_t i;
    size_t len;
    raw[0] = f->version;
    raw[1] = f->type;
    put_u16(raw + 2, f->seq);
    put_u32(raw + 4, f->time_ms);
    for (i = 0; i < n; i++)
        raw[PROTO_HEADER_LEN + i] = f->payload[i];
    len = PROTO_HEADER_LEN + n;
    put_u16(raw + len, crc16_ccitt(raw, len, CRC16_INIT));
    return len + 2;
}

size_t frame_wire_from_raw(const uint8_t *raw, size_t raw_len, uint8_t *wire)
{
    size_t n = cobs_encode(raw, raw_len, wire);
    wire[n] = 0;
    return n + 1;
}

size_t frame_encode(const struct frame *f, uint8_t *wire)
{
    uint8_t raw[PROTO_MAX_RAW];
    size_t n = frame_pack(f, raw);
    return frame_wire_from_raw(raw, n, wire);
}

int proto_payload_len(uint8_t type)
{
    switch (type) {
    case MSG_HELLO: return 11;
    case MSG_CARD: return 4;
    case MSG_CARD_UNREADABLE: return 3;
    case MSG_SHOE_EMPTY: return 2;
    case MSG_SHOE_LOADED: return 1;
    case MSG_HEARTBEAT: return 4;
    case MSG_ERROR: return 3;
    case MSG_ACK: return 2;
    case MSG_RESEND: return 2;
    case MSG_SET_TIME: return 4;
    case MSG_RESET: return 0;
    default: return -1;
    }
}

enum proto_result frame_unpack(const uint8_t *raw, size_t len, struct frame *f)
{
    size_t i;
    if (len < PROTO_MIN_RAW)
        return PROTO_ERR_SHORT;
    if (len > PROTO_MAX_RAW)
        return PROTO_ERR_LONG;
    if (crc16_ccitt(raw, len - 2, CRC16_INIT) != get_u16(raw + len - 2))
        return PROTO_ERR_CRC;
    if (raw[0] != PROTO_VERSION)
        return PROTO_ERR_VERSION;
    f->version = raw[0];
    f->type = raw[1];
    f->seq = get_u16(raw + 2);
    f->time_ms = get_u32(raw + 4);
    f->len = (uint8_t)(len - PROTO_MIN_RAW);
    for (i = 0; i < f->len; i++)
        f->payload[i] = raw[PROTO_HEADER_LEN + i];
    /* Exact lengths in version 1: a dropped byte or two merged frames fail
     * here even when the CRC happens to match. Unknown types: any length. */
    if (proto_payload_len(f->type) >= 0 && f->len != proto_payload_len(f->type))
        return PROTO_ERR_LENGTH;
    return PROTO_OK;
}

enum proto_result frame_decode(const uint8_t *body, size_t len, struct frame *f)
{
    uint8_t raw[PROTO_MAX_ENCODED];
    int n;
    if (len > PROTO_MAX_ENCODED)
        return PROTO_ERR_LONG;
    n = cobs_decode(body, len, raw);
    if (n < 0)
        return PROTO_ERR_COBS;
    return frame_unpack(raw, (size_t)n, f);
}

const char *proto_result_name(enum proto_result r)
{
    switch (r) {
    case PROTO_OK: return "ok";
    case PROTO_ERR_COBS: return "cobs";
    case PROTO_ERR_SHORT: return "short";
    case PROTO_ERR_LONG: return "long";
    case PROTO_ERR_CRC: return "crc";
    case PROTO_ERR_VERSION: return "version";
    case PROTO_ERR_LENGTH: return "length";
    }
    return "?";
}

void stream_init(struct stream_decoder *d)
{
    d->len = 0;
    d->overlong = 0;
    d->frames = 0;
    d->errors = 0;
}

enum stream_event stream_feed(struct stream_decoder *d, uint8_t byte, struct frame *f,
                              enum proto_result *err)
{
    enum proto_result r;
    if (byte != 0) {
        if (d->overlong)
            return STREAM_NONE;
        if (d->len >= PROTO_MAX_ENCODED) {
            d->overlong = 1;
            d->len = 0;
            d->errors++;
            *err = PROTO_ERR_LONG;
            return STREAM_ERROR;
        }
        d->buf[d->len++] = byte;
        return STREAM_NONE;
    }
    if (d->overlong) {
        d->overlong = 0;
        d->len = 0;
        return STREAM_NONE;
    }
    if (d->len == 0)
        return STREAM_NONE; /* idle delimiter */
    r = frame_decode(d->buf, d->len, f);
    d->len = 0;
    if (r == PROTO_OK) {
        d->frames++;
        return STREAM_FRAME;
    }
    d->errors++;
    *err = r;
    return STREAM_ERROR;
}

static int upper(int c) { return (c >= 'a' && c <= 'z') ? c - 32 : c; }

uint8_t card_parse(const char *text, size_t len)
{
    static const char suits[] = "SHDC";
    static const char ranks[] = "AKQJT98765432";
    int s = -1, r = -1;
    uint8_t i;
    char rank;
    if (len == 2 && upper(text[0]) == 'J' && upper(text[1]) == 'K')
        return CARD_JOKER;
    if (len == 3 && text[1] == '1' && text[2] == '0')
        rank = 'T';
    else if (len == 2)
        rank = (char)upper(text[1]);
    else
        return CARD_NONE;
    for (i = 0; i < 4; i++)
        if (suits[i] == upper(text[0]))
            s = i;
    for (i = 0; i < 13; i++)
        if (ranks[i] == rank)
            r = i;
    if (s < 0 || r < 0)
        return CARD_NONE;
    return (uint8_t)(s * 13 + r);
}
