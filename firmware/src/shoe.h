/* The shoe application: sensor events -> sequenced frames (kept in the
 * retransmit ring), host commands (ACK, RESEND, RESET, SET_TIME) and the
 * heartbeat. Call shoe_poll() from the main loop as often as possible. */
#ifndef SHOE_SHOE_H
#define SHOE_SHOE_H

#include <stdint.h>
#include "proto.h"
#include "ring.h"
#include "sensor.h"

#define FW_MAJOR 1u
#define FW_MINOR 1u
#ifndef SHOE_HEARTBEAT_MS
#define SHOE_HEARTBEAT_MS 500u
#endif

struct shoe {
    struct ring ring;
    struct sensor sensor;
    struct stream_decoder rx;
    uint16_t next_seq;
    uint32_t time_offset;
    uint32_t last_heartbeat;
    uint16_t heartbeat_ms;
    uint8_t resend_active;
    uint16_t resend_next;
    uint16_t rx_errors;
    uint16_t overflow_reported;
};

void shoe_init(struct shoe *sh);
void shoe_poll(struct shoe *sh);
uint32_t shoe_time(const struct shoe *sh);
/* Exposed for tests: handle one decoded host frame. */
void shoe_handle_host_frame(struct shoe *sh, const struct frame *f);

#endif
