#include "shoe.h"
#include "hal.h"

uint32_t shoe_time(const struct shoe *sh) { return hal_millis() + sh->time_offset; }

static void write_raw(const uint8_t *raw, size_t len)
{
    uint8_t wire[PROTO_MAX_WIRE];
    size_t n = frame_wire_from_raw(raw, len, wire);
    hal_host_write(wire, n);
}

static void send_sequenced(struct shoe *sh, uint8_t type, const uint8_t *payload, uint8_t len)
{
    struct frame f;
    uint8_t raw[PROTO_MAX_RAW];
    uint8_t i;
    size_t n;
    f.version = PROTO_VERSION;
    f.type = type;
    f.seq = sh->next_seq++;
    f.time_ms = shoe_time(sh);
    f.len = len;
    for (i = 0; i < len; i++)
        f.payload[i] = payload[i];
    n = frame_pack(&f, raw);
    ring_push(&sh->ring, f.seq, raw, (uint8_t)n);
    write_raw(raw, n);
}

static void send_error(struct shoe *sh, uint8_t code, uint16_t detail)
{
    uint8_t p[3];
    p[0] = code;
    put_u16(p + 1, detail);
    send_sequenced(sh, MSG_ERROR, p, 3);
}

static void send_heartbeat(struct shoe *sh)
{
    struct frame f;
    uint8_t wire[PROTO_MAX_WIRE];
    f.version = PROTO_VERSION;
    f.type = MSG_HEARTBEAT;
    f.seq = (uint16_t)(sh->next_seq - 1u); /* unsequenced: the last sequenced frame */
    f.time_ms = shoe_time(sh);
    f.len = 4;
    put_u16(f.payload, sh->sensor.dealt);
    f.payload[2] = sensor_status(&sh->sensor);
    f.payload[3] = sh->ring.count;
    hal_host_write(wire, frame_encode(&f, wire));
    sh->last_heartbeat = hal_millis();
}

void shoe_init(struct shoe *sh)
{
    uint8_t p[11];
    ring_init(&sh->ring);
    stream_init(&sh->rx);
    sensor_init(&sh->sensor, hal_millis(), hal_pack_present());
    sh->next_seq = 0;
    sh->time_offset = 0;
    sh->resend_active = 0;
    sh->resend_next = 0;
    sh->rx_errors = 0;
    sh->overflow_reported = 0;
    sh->heartbeat_ms = SHOE_HEARTBEAT_MS;
    p[0] = PROTO_VERSION;
    p[1] = FW_MAJOR;
    p[2] = FW_MINOR;
    put_u32(p + 3, hal_shoe_id());
    put_u16(p + 7, hal_boot_count());
    p[9] = 0; /* pack not known until the reader reports one */
    p[10] = hal_reset_cause();
    send_sequenced(sh, MSG_HELLO, p, 11);
    sh->last_heartbeat = hal_millis();
}

static void start_resend(struct shoe *sh, uint16_t from)
{
    int pos;
    uint16_t oldest;
    if (from == sh->next_seq)
        return; /* the host is up to date: nothing to send */
    pos = ring_find(&sh->ring, from);
    if (pos >= 0) {
        sh->resend_active = 1;
        sh->resend_next = from;
        return;
    }
    /* Not kept (acknowledged, overwritten, or asked for across a reboot): say
     * which frame is the oldest kept once this ERROR is in the ring, then
     * replay the ring (the error included). */
    if (sh->ring.count == 0)
        oldest = sh->next_seq;
    else if (sh->ring.count >= RING_SLOTS) {
        uint8_t len;
        ring_at(&sh->ring, 1, &len, &oldest);
    } else
        oldest = ring_oldest_seq(&sh->ring);
    send_error(sh, ERR_RESEND_UNAVAILABLE, oldest);
    sh->resend_active = 1;
    sh->resend_next = ring_oldest_seq(&sh->ring);
}

void shoe_handle_host_frame(struct shoe *sh, const struct frame *f)
{
    switch (f->type) {
    case MSG_ACK:
        /* An ACK of frames not sent yet is a stale one from before a reboot:
         * obeying it would throw away frames the host has not seen. */
        if ((uint16_t)(get_u16(f->payload) - sh->next_seq) >= 0x8000u)
            ring_ack(&sh->ring, get_u16(f->payload));
        break;
    case MSG_RESEND:
        start_resend(sh, get_u16(f->payload));
        break;
    case MSG_RESET:
        hal_reset();
        break;
    case MSG_SET_TIME: {
        /* Forward only (firmware 1.1): two hosts, or one SET_TIME meant for
         * the boot before, must never make later frames look older than
         * earlier ones - the host tells a restart by time running back. */
        uint32_t want = get_u32(f->payload);
        if ((int32_t)(want - shoe_time(sh)) > 0)
            sh->time_offset = want - hal_millis();
        break;
    }
    default:
        send_error(sh, ERR_BAD_FRAME, f->type);
        break;
    }
}

static void pump_resend(struct shoe *sh)
{
    while (sh->resend_active && hal_host_tx_free() >= PROTO_MAX_WIRE) {
        uint8_t len;
        uint16_t seq;
        const uint8_t *raw;
        int pos = ring_find(&sh->ring, sh->resend_next);
        if (pos < 0) { /* acknowledged meanwhile, or done */
            if (sh->ring.count && (uint16_t)(sh->resend_next - ring_oldest_seq(&sh->ring)) >= 0x8000u)
                sh->resend_next = ring_oldest_seq(&sh->ring);
            else {
                sh->resend_active = 0;
                break;
            }
            continue;
        }
        raw = ring_at(&sh->ring, (uint8_t)pos, &len, &seq);
        write_raw(raw, len);
        sh->resend_next = (uint16_t)(seq + 1u);
    }
}

static void handle_sensor(struct shoe *sh, const struct sensor_event *ev)
{
    uint8_t p[4];
    switch (ev->type) {
    case SE_CARD:
        p[0] = ev->code;
        p[1] = ev->confidence;
        p[2] = ev->flags;
        p[3] = ev->pack;
        send_sequenced(sh, MSG_CARD, p, 4);
        break;
    case SE_UNREADABLE:
        p[0] = ev->reason;
        p[1] = ev->confidence; /* count of cards */
        p[2] = ev->flags;
        send_sequenced(sh, MSG_CARD_UNREADABLE, p, 3);
        break;
    case SE_DOUBLE_FEED:
        send_error(sh, ERR_DOUBLE_FEED, ev->detail);
        break;
    case SE_JAM:
        send_error(sh, ERR_JAM, ev->detail);
        break;
    case SE_LOADED:
        p[0] = ev->pack;
        send_sequenced(sh, MSG_SHOE_LOADED, p, 1);
        break;
    case SE_EMPTY:
        put_u16(p, ev->detail);
        send_sequenced(sh, MSG_SHOE_EMPTY, p, 2);
        break;
    default:
        break;
    }
}

void shoe_poll(struct shoe *sh)
{
    int c;
    uint32_t now;
    struct frame f;
    enum proto_result err;
    struct sensor_event ev;

    while ((c = hal_host_read()) >= 0) {
        enum stream_event se = stream_feed(&sh->rx, (uint8_t)c, &f, &err);
        if (se == STREAM_FRAME) {
            shoe_handle_host_frame(sh, &f);
        } else if (se == STREAM_ERROR) {
            /* Host frames are idempotent and the host repeats them; just count. */
            sh->rx_errors++;
        }
    }
    now = hal_millis();
    while ((c = hal_reader_read()) >= 0)
        sensor_reader_byte(&sh->sensor, now, (uint8_t)c);
    sensor_step(&sh->sensor, now, hal_slot_blocked(), hal_kitty_button(), hal_pack_present());
    while (sensor_pop(&sh->sensor, &ev))
        handle_sensor(sh, &ev);
    if (sh->ring.overwritten != sh->overflow_reported) {
        send_error(sh, ERR_RING_OVERFLOW, ring_oldest_seq(&sh->ring));
        sh->overflow_reported = sh->ring.overwritten; /* the error may overwrite one more */
    }
    pump_resend(sh);
    if ((uint32_t)(now - sh->last_heartbeat) >= sh->heartbeat_ms)
        send_heartbeat(sh);
}
