/* Host unit tests for the shoe firmware: protocol against the shared test
 * vectors, the retransmit ring, the card-sensor state machine and the shoe
 * application driven through the fake HAL. Run with `make -C firmware test`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "minijson.h"
#include "proto.h"
#include "ring.h"
#include "sensor.h"
#include "shoe.h"
#include "hal_host.h"

int unit_checks, unit_failures;
const char *unit_current = "";
static const char *vectors_path = "test-vectors.json";

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (hex[0] && hex[1] && n < cap) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (uint8_t)v;
        hex += 2;
    }
    return n;
}

/* ---- protocol against test-vectors.json ---- */

static void test_vectors(void)
{
    FILE *fp = fopen(vectors_path, "rb");
    char *text;
    long size;
    struct mj *root, *v;
    int n_frames = 0, n_bad = 0, n_crc = 0, n_cobs = 0, n_stream = 0;
    static uint8_t a[1024], b[1024], c[1024];
    unit_current = "vectors";
    CHECK(fp != NULL);
    if (!fp)
        return;
    fseek(fp, 0, SEEK_END);
    size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    text = malloc((size_t)size + 1);
    CHECK(fread(text, 1, (size_t)size, fp) == (size_t)size);
    text[size] = 0;
    fclose(fp);
    root = mj_parse(text);
    CHECK(root != NULL);
    CHECK_EQ(mj_num(root, "protocol_version", -1), PROTO_VERSION);
    for (v = mj_get(root, "vectors") ? mj_get(root, "vectors")->child : NULL; v; v = v->next) {
        const char *kind = mj_str(v, "kind");
        if (!strcmp(kind, "crc")) {
            size_t n = unhex(mj_str(v, "data"), a, sizeof a);
            CHECK_EQ(crc16_ccitt(a, n, CRC16_INIT), mj_num(v, "crc", -1));
            n_crc++;
        } else if (!strcmp(kind, "cobs")) {
            size_t n = unhex(mj_str(v, "raw"), a, sizeof a);
            size_t m = unhex(mj_str(v, "cobs"), b, sizeof b);
            size_t e = cobs_encode(a, n, c);
            int d;
            CHECK_EQ(e, m);
            CHECK(memcmp(b, c, m) == 0);
            d = cobs_decode(b, m, c);
            CHECK_EQ(d, n);
            CHECK(memcmp(a, c, n) == 0);
            n_cobs++;
        } else if (!strcmp(kind, "frame")) {
            size_t n = unhex(mj_str(v, "wire"), a, sizeof a);
            struct frame f;
            enum proto_result r;
            unit_current = mj_str(v, "name");
            CHECK(n > 0 && a[n - 1] == 0);
            r = frame_decode(a, n - 1, &f);
            if (mj_num(v, "valid", 0)) {
                size_t plen = unhex(mj_str(v, "payload"), b, sizeof b), wlen;
                CHECK_EQ(r, PROTO_OK);
                CHECK_EQ(f.version, mj_num(v, "version", -1));
                CHECK_EQ(f.type, mj_num(v, "type", -1));
                CHECK_EQ(f.seq, mj_num(v, "seq", -1));
                CHECK_EQ(f.time_ms, mj_num(v, "time_ms", -1));
                CHECK_EQ(f.len, plen);
                CHECK(memcmp(f.payload, b, plen) == 0);
                /* and the encoder reproduces the exact wire bytes */
                wlen = frame_encode(&f, c);
                CHECK_EQ(wlen, n);
                CHECK(memcmp(a, c, n) == 0);
                if (f.type == MSG_CARD) {
                    struct mj *fields = mj_get(v, "fields");
                    const char *name = mj_str(fields, "card");
                    CHECK_EQ(card_parse(name, strlen(name)) == f.payload[0] ||
                             (f.payload[0] >= CARD_JOKER && f.payload[0] <= CARD_JOKER + 2), 1);
                }
                n_frames++;
            } else {
                CHECK(r != PROTO_OK);
                CHECK(strcmp(proto_result_name(r), mj_str(v, "error")) == 0);
                if (strcmp(proto_result_name(r), mj_str(v, "error")) != 0)
                    fprintf(stderr, "  got %s want %s\n", proto_result_name(r), mj_str(v, "error"));
                n_bad++;
            }
            unit_current = "vectors";
        } else if (!strcmp(kind, "stream")) {
            size_t n = unhex(mj_str(v, "wire"), a, sizeof a), i;
            struct stream_decoder d;
            struct frame f;
            enum proto_result err;
            int frames = 0, errors = 0;
            struct mj *seq = mj_get(v, "seqs") ? mj_get(v, "seqs")->child : NULL;
            stream_init(&d);
            for (i = 0; i < n; i++) {
                enum stream_event e = stream_feed(&d, a[i], &f, &err);
                if (e == STREAM_FRAME) {
                    frames++;
                    CHECK(seq != NULL);
                    if (seq) {
                        CHECK_EQ(f.seq, seq->num);
                        seq = seq->next;
                    }
                } else if (e == STREAM_ERROR) {
                    errors++;
                }
            }
            CHECK_EQ(frames, mj_num(v, "frames", -1));
            CHECK_EQ(errors, mj_num(v, "errors", -1));
            n_stream++;
        }
    }
    CHECK(n_crc >= 3 && n_cobs >= 3 && n_frames >= 10 && n_bad >= 5 && n_stream >= 1);
    printf("  vectors: %d crc, %d cobs, %d good frames, %d corrupt frames, %d streams\n",
           n_crc, n_cobs, n_frames, n_bad, n_stream);
    mj_free_all();
    free(text);
}

static void test_stream_overlong_resync(void)
{
    struct stream_decoder d;
    struct frame f, g;
    enum proto_result err;
    uint8_t wire[PROTO_MAX_WIRE];
    size_t n, i;
    int errors = 0, frames = 0;
    unit_current = "stream_overlong";
    stream_init(&d);
    for (i = 0; i < 500; i++)
        errors += stream_feed(&d, 0x55, &f, &err) == STREAM_ERROR;
    CHECK_EQ(errors, 1);
    g.version = PROTO_VERSION; g.type = MSG_SHOE_LOADED; g.seq = 3; g.time_ms = 9; g.len = 1; g.payload[0] = 1;
    n = frame_encode(&g, wire);
    for (i = 0; i < n; i++) /* the first frame after garbage is eaten with it ... */
        frames += stream_feed(&d, wire[i], &f, &err) == STREAM_FRAME;
    CHECK_EQ(frames, 0);
    for (i = 0; i < n; i++) /* ... and the next one comes through */
        frames += stream_feed(&d, wire[i], &f, &err) == STREAM_FRAME;
    CHECK_EQ(frames, 1);
    CHECK_EQ(f.seq, 3);
}

/* Random noise and randomly damaged frames: never a crash, never a bad frame accepted. */
static void test_stream_noise(void)
{
    struct stream_decoder d;
    struct frame f, g;
    enum proto_result err;
    uint8_t wire[PROTO_MAX_WIRE];
    uint32_t x = 12345u, i, k;
    int accepted_bad = 0, good = 0;
    unit_current = "stream_noise";
    stream_init(&d);
    for (i = 0; i < 200000u; i++) {
        x = x * 1103515245u + 12345u;
        (void)stream_feed(&d, (uint8_t)(x >> 16), &f, &err);
    }
    for (i = 0; i < 20000u; i++) {
        size_t n;
        g.version = PROTO_VERSION; g.type = MSG_CARD; g.seq = (uint16_t)i; g.time_ms = i * 7u; g.len = 4;
        g.payload[0] = (uint8_t)(i % 52u); g.payload[1] = 90; g.payload[2] = 0; g.payload[3] = 1;
        n = frame_encode(&g, wire);
        x = x * 1103515245u + 12345u;
        if (i % 2u) /* flip one bit, not in the delimiter */
            wire[(x >> 8) % (n - 1)] ^= (uint8_t)(1u << ((x >> 4) % 8u));
        for (k = 0; k < n; k++) {
            if (stream_feed(&d, wire[k], &f, &err) == STREAM_FRAME) {
                if (i % 2u)
                    accepted_bad++;
                else
                    good++;
            }
        }
    }
    CHECK_EQ(accepted_bad, 0);
    CHECK(good >= 9990); /* at most the first frame after the noise is eaten */
}

static void test_card_parse(void)
{
    unit_current = "card_parse";
    CHECK_EQ(card_parse("SA", 2), 0);
    CHECK_EQ(card_parse("c2", 2), 51);
    CHECK_EQ(card_parse("H10", 3), 17);
    CHECK_EQ(card_parse("HT", 2), 17);
    CHECK_EQ(card_parse("JK", 2), CARD_JOKER);
    CHECK_EQ(card_parse("S1", 2), CARD_NONE);
    CHECK_EQ(card_parse("X", 1), CARD_NONE);
}

/* ---- ring ---- */

static void test_ring(void)
{
    static struct ring r;
    uint8_t raw[4] = {1, 2, 3, 4}, len;
    uint16_t seq, i;
    unit_current = "ring";
    ring_init(&r);
    for (i = 0; i < 5; i++)
        CHECK_EQ(ring_push(&r, (uint16_t)(65534u + i), raw, 4), 0); /* wraps 65534..2 */
    CHECK_EQ(r.count, 5);
    CHECK_EQ(ring_find(&r, 0), 2);
    ring_ack(&r, 65535);
    CHECK_EQ(r.count, 3);
    CHECK_EQ(ring_oldest_seq(&r), 0);
    ring_ack(&r, 60000); /* an old ACK changes nothing */
    CHECK_EQ(r.count, 3);
    ring_ack(&r, 1);
    CHECK_EQ(r.count, 1);
    ring_at(&r, 0, &len, &seq);
    CHECK_EQ(seq, 2);
    CHECK_EQ(len, 4);
    for (i = 0; i < RING_SLOTS; i++)
        ring_push(&r, (uint16_t)(3 + i), raw, 4);
    CHECK_EQ(r.count, RING_SLOTS);
    CHECK_EQ(r.overwritten, 1);
    CHECK_EQ(ring_find(&r, 2), -1);
    CHECK_EQ(ring_oldest_seq(&r), 3);
}

/* ---- sensor ---- */

static struct sensor S;
static uint32_t T;

static void run_ms(uint32_t ms, uint8_t beam, uint8_t button, uint8_t pack)
{
    uint32_t end = T + ms;
    for (; T < end; T++)
        sensor_step(&S, T, beam, button, pack);
}

static void feed_reader(const char *line)
{
    while (*line)
        sensor_reader_byte(&S, T, (uint8_t)*line++);
}

static void test_sensor_card_and_debounce(void)
{
    struct sensor_event ev;
    unit_current = "sensor_card";
    T = 0;
    sensor_init(&S, T, 1);
    run_ms(10, 0, 0, 1);
    run_ms(2, 1, 0, 1);   /* a 2 ms glitch: below the debounce */
    run_ms(10, 0, 0, 1);
    CHECK_EQ(sensor_pop(&S, &ev), 0);
    run_ms(15, 1, 0, 1);
    feed_reader("SA 97 P1\r\n");
    run_ms(20, 1, 0, 1);
    run_ms(40, 0, 0, 1);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_CARD);
    CHECK_EQ(ev.code, 0);
    CHECK_EQ(ev.confidence, 97);
    CHECK_EQ(ev.pack, 1);
    CHECK_EQ(ev.flags, 0);
    CHECK_EQ(sensor_pop(&S, &ev), 0);
    CHECK_EQ(S.dealt, 1);
    /* a read with nothing in the slot is ignored */
    feed_reader("HK\n");
    run_ms(30, 0, 0, 1);
    CHECK_EQ(sensor_pop(&S, &ev), 0);
}

static void test_sensor_unreadable_and_kitty(void)
{
    struct sensor_event ev;
    unit_current = "sensor_unreadable_kitty";
    T = 0;
    sensor_init(&S, T, 1);
    run_ms(30, 0, 1, 1);  /* KITTY pressed ... */
    run_ms(30, 0, 0, 1);  /* ... and released */
    CHECK(sensor_status(&S) & STATUS_KITTY_ARMED);
    run_ms(30, 1, 0, 1);  /* a card no code was read for */
    run_ms(40, 0, 0, 1);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_UNREADABLE);
    CHECK_EQ(ev.reason, UNREAD_NO_READ);
    CHECK_EQ(ev.confidence, 1);
    CHECK_EQ(ev.flags, FLAG_KITTY);
    CHECK_EQ(sensor_status(&S) & STATUS_KITTY_ARMED, 0);
    /* an unparsable line is a low-confidence unreadable */
    run_ms(10, 1, 0, 1);
    feed_reader("??\n");
    run_ms(20, 1, 0, 1);
    run_ms(40, 0, 0, 1);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_UNREADABLE);
    CHECK_EQ(ev.reason, UNREAD_LOW_CONFIDENCE);
    CHECK_EQ(S.dealt, 2);
}

static void test_sensor_double_feed_and_jam(void)
{
    struct sensor_event ev;
    unit_current = "sensor_double_jam";
    T = 0;
    sensor_init(&S, T, 1);
    /* two codes in one passage: two cards and a DOUBLE_FEED note */
    run_ms(10, 1, 0, 1);
    feed_reader("D5\nD6\n");
    run_ms(30, 1, 0, 1);
    run_ms(40, 0, 0, 1);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_DOUBLE_FEED);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_CARD);
    CHECK_EQ(ev.code, 2 * 13 + 9);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.code, 2 * 13 + 8);
    /* a long passage with one code: that card and one unreadable (double feed) */
    run_ms(10, 1, 0, 1);
    feed_reader("CA\n");
    run_ms(600, 1, 0, 1);
    run_ms(40, 0, 0, 1);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_CARD);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_UNREADABLE);
    CHECK_EQ(ev.reason, UNREAD_DOUBLE_FEED);
    CHECK_EQ(ev.confidence, 1);
    /* a card stuck in the slot: JAM once, then the card when it clears */
    run_ms(10, 1, 0, 1);
    feed_reader("HQ 80\n");
    run_ms(2000, 1, 0, 1);
    CHECK(sensor_status(&S) & STATUS_JAMMED);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_JAM);
    CHECK_EQ(sensor_pop(&S, &ev), 0);
    run_ms(40, 0, 0, 1);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_CARD);
    CHECK_EQ(ev.confidence, 80);
    CHECK_EQ(sensor_pop(&S, &ev), 0);
    CHECK_EQ(S.dealt, 5);
    /* pack taken out and put back */
    run_ms(100, 0, 0, 0);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_EMPTY);
    CHECK_EQ(ev.detail, 5);
    run_ms(100, 0, 0, 1);
    CHECK_EQ(sensor_pop(&S, &ev), 1);
    CHECK_EQ(ev.type, SE_LOADED);
    CHECK_EQ(S.dealt, 0);
}

/* ---- the application through the fake HAL ---- */

static struct shoe SH;

/* Decode everything the shoe wrote since `from`; returns the number of frames. */
static int decode_tx(size_t from, struct frame *out, int cap)
{
    struct stream_decoder d;
    enum proto_result err;
    int n = 0;
    size_t i;
    stream_init(&d);
    for (i = from; i < fake_tx_len; i++) {
        struct frame f;
        if (stream_feed(&d, fake_tx[i], &f, &err) == STREAM_FRAME && n < cap)
            out[n++] = f;
    }
    return n;
}

static void host_cmd(uint8_t type, uint32_t value, uint8_t len)
{
    struct frame f;
    uint8_t wire[PROTO_MAX_WIRE];
    f.version = PROTO_VERSION;
    f.type = type;
    f.seq = 1;
    f.time_ms = 0;
    f.len = len;
    put_u32(f.payload, value);
    fake_host_send(wire, frame_encode(&f, wire));
}

static void deal_card(const char *line)
{
    int i;
    for (i = 0; i < 10; i++, fake_now++)
        shoe_poll(&SH);
    fake_slot = 1;
    fake_reader = line;
    for (i = 0; i < 30; i++, fake_now++)
        shoe_poll(&SH);
    fake_slot = 0;
    for (i = 0; i < 30; i++, fake_now++)
        shoe_poll(&SH);
}

static void test_shoe_app(void)
{
    static struct frame fr[256];
    int n, i;
    size_t mark, first_card_at, first_card_len;
    unit_current = "shoe_app";
    fake_reset_all();
    fake_boot = 7;
    shoe_init(&SH);
    n = decode_tx(0, fr, 256);
    CHECK_EQ(n, 1);
    CHECK_EQ(fr[0].type, MSG_HELLO);
    CHECK_EQ(fr[0].seq, 0);
    CHECK_EQ(get_u16(fr[0].payload + 7), 7);
    first_card_at = fake_tx_len;
    deal_card("SA 99\n");
    first_card_len = fake_tx_len - first_card_at;
    deal_card("SK 98\n");
    deal_card("SQ 97\n");
    n = decode_tx(0, fr, 256);
    CHECK_EQ(n, 4);
    for (i = 1; i < 4; i++) {
        CHECK_EQ(fr[i].type, MSG_CARD);
        CHECK_EQ(fr[i].seq, i);
        CHECK_EQ(fr[i].payload[0], i - 1);
    }
    CHECK_EQ(SH.ring.count, 4);
    /* heartbeat: unsequenced, carries the last seq */
    mark = fake_tx_len;
    for (i = 0; i < (int)SHOE_HEARTBEAT_MS + 5; i++, fake_now++)
        shoe_poll(&SH);
    n = decode_tx(mark, fr, 256);
    CHECK_EQ(n, 1);
    CHECK_EQ(fr[0].type, MSG_HEARTBEAT);
    CHECK_EQ(fr[0].seq, 3);
    CHECK_EQ(get_u16(fr[0].payload), 3);
    CHECK_EQ(fr[0].payload[3], 4);
    /* RESEND from 1 replays 1..3 byte for byte */
    mark = fake_tx_len;
    host_cmd(MSG_RESEND, 1, 2);
    shoe_poll(&SH);
    n = decode_tx(mark, fr, 256);
    CHECK_EQ(n, 3);
    CHECK_EQ(fr[0].seq, 1);
    CHECK_EQ(fr[2].seq, 3);
    CHECK(memcmp(fake_tx + mark, fake_tx + first_card_at, first_card_len) == 0);
    /* a RESEND paced by the UART: nothing while the TX buffer is full */
    mark = fake_tx_len;
    fake_tx_free = 0;
    host_cmd(MSG_RESEND, 2, 2);
    shoe_poll(&SH);
    CHECK_EQ(fake_tx_len, mark);
    fake_tx_free = 1024;
    shoe_poll(&SH);
    CHECK_EQ(decode_tx(mark, fr, 256), 2);
    /* ACK frees the ring; a RESEND of acknowledged frames says so */
    host_cmd(MSG_ACK, 2, 2);
    shoe_poll(&SH);
    CHECK_EQ(SH.ring.count, 1);
    mark = fake_tx_len;
    host_cmd(MSG_RESEND, 0, 2);
    shoe_poll(&SH);
    n = decode_tx(mark, fr, 256);
    CHECK(n >= 2);
    CHECK_EQ(fr[0].type, MSG_ERROR);
    CHECK_EQ(fr[0].payload[0], ERR_RESEND_UNAVAILABLE);
    CHECK_EQ(get_u16(fr[0].payload + 1), 3);
    CHECK_EQ(fr[1].seq, 3);
    /* RESEND of the next frame (the host is up to date) sends nothing */
    mark = fake_tx_len;
    host_cmd(MSG_RESEND, SH.next_seq, 2);
    shoe_poll(&SH);
    CHECK_EQ(decode_tx(mark, fr, 256), 0);
    /* SET_TIME moves the device clock forward, never back */
    host_cmd(MSG_SET_TIME, 5000000, 4);
    shoe_poll(&SH);
    CHECK(shoe_time(&SH) == 5000000u);
    host_cmd(MSG_SET_TIME, 4000000, 4);
    shoe_poll(&SH);
    CHECK(shoe_time(&SH) == 5000000u);
    /* garbage from the host is counted, not fatal */
    fake_host_send((const uint8_t *)"\x12\x34\x56\x00", 4);
    shoe_poll(&SH);
    CHECK_EQ(SH.rx_errors, 1);
    /* RESET */
    host_cmd(MSG_RESET, 0, 0);
    shoe_poll(&SH);
    CHECK_EQ(fake_reset_requested, 1);
}

static void test_shoe_cable_pull_overflow(void)
{
    static struct frame fr[256];
    int i, n, errors = 0;
    unit_current = "shoe_overflow";
    fake_reset_all();
    shoe_init(&SH);
    host_cmd(MSG_ACK, 0, 2);
    shoe_poll(&SH);
    for (i = 0; i < (int)RING_SLOTS + 3; i++)
        deal_card("C9\n");
    n = decode_tx(0, fr, 256);
    for (i = 0; i < n; i++)
        if (fr[i].type == MSG_ERROR && fr[i].payload[0] == ERR_RING_OVERFLOW)
            errors++;
    CHECK(errors >= 1);
    CHECK_EQ(SH.ring.count, RING_SLOTS);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        vectors_path = argv[1];
    test_vectors();
    test_stream_overlong_resync();
    test_stream_noise();
    test_card_parse();
    test_ring();
    test_sensor_card_and_debounce();
    test_sensor_unreadable_and_kitty();
    test_sensor_double_feed_and_jam();
    test_shoe_app();
    test_shoe_cable_pull_overflow();
    printf("firmware host tests: %d checks, %d failures\n", unit_checks, unit_failures);
    return unit_failures ? 1 : 0;
}
