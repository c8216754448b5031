/* Retransmit ring: the shoe keeps every sequenced frame it sent until the
 * host acknowledges it, so a RESEND (after a lost or corrupt frame, or a
 * pulled cable) can replay the exact same bytes. Frames are stored unframed
 * (header + payload + CRC); they are COBS-encoded again when resent. */
#ifndef SHOE_RING_H
#define SHOE_RING_H

#include <stdint.h>
#include "proto.h"

#ifndef RING_SLOTS
#define RING_SLOTS 32u
#endif
#define RING_SLOT_BYTES 24u /* longest shoe frame: HELLO, 21 bytes */

struct ring {
    uint8_t data[RING_SLOTS][RING_SLOT_BYTES];
    uint8_t len[RING_SLOTS];
    uint16_t seq[RING_SLOTS];
    uint8_t head;   /* index of the oldest kept frame */
    uint8_t count;
    uint16_t overwritten; /* frames lost because the ring was full */
};

void ring_init(struct ring *r);
/* Store a raw frame with its seq; overwrites the oldest when full (returns 1 then). */
uint8_t ring_push(struct ring *r, uint16_t seq, const uint8_t *raw, uint8_t len);
/* Drop every frame with seq <= ack (in sequence-number order, mod 65536). */
void ring_ack(struct ring *r, uint16_t ack);
/* Position of seq in the ring, or -1 if it is not kept. */
int ring_find(const struct ring *r, uint16_t seq);
const uint8_t *ring_at(const struct ring *r, uint8_t pos, uint8_t *len, uint16_t *seq);
uint16_t ring_oldest_seq(const struct ring *r);

#endif
