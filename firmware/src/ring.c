#include "ring.h"

void ring_init(struct ring *r)
{
    r->head = 0;
    r->count = 0;
    r->overwritten = 0;
}

uint8_t ring_push(struct ring *r, uint16_t seq, const uint8_t *raw, uint8_t len)
{
    uint8_t slot, i, lost = 0;
    if (len > RING_SLOT_BYTES)
        len = RING_SLOT_BYTES;
    if (r->count == RING_SLOTS) {
        r->head = (uint8_t)((r->head + 1) % RING_SLOTS);
        r->count--;
        r->overwritten++;
        lost = 1;
    }
    slot = (uint8_t)((r->head + r->count) % RING_SLOTS);
    for (i = 0; i < len; i++)
        r->data[slot][i] = raw[i];
    r->len[slot] = len;
    r->seq[slot] = seq;
    r->count++;
    return lost;
}

void ring_ack(struct ring *r, uint16_t ack)
{
    while (r->count) {
        uint16_t s = r->seq[r->head];
        /* s is acknowledged when it is at or before ack, modulo 2^16. */
        if ((uint16_t)(ack - s) >= 0x8000u)
            break;
        r->head = (uint8_t)((r->head + 1) % RING_SLOTS);
        r->count--;
    }
}

int ring_find(const struct ring *r, uint16_t seq)
{
    uint8_t i;
    for (i = 0; i < r->count; i++)
        if (r->seq[(r->head + i) % RING_SLOTS] == seq)
            return i;
    return -1;
}

const uint8_t *ring_at(const struct ring *r, uint8_t pos, uint8_t *len, uint16_t *seq)
{
    uint8_t slot = (uint8_t)((r->head + pos) % RING_SLOTS);
    *len = r->len[slot];
    *seq = r->seq[slot];
    return r->data[slot];
}

uint16_t ring_oldest_seq(const struct ring *r) { return r->count ? r->seq[r->head] : 0; }
