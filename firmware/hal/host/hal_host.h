/* Test double for the HAL: time, pins and UARTs are plain variables the
 * unit tests set and inspect. */
#ifndef SHOE_HAL_HOST_H
#define SHOE_HAL_HOST_H
#include <stdint.h>
#include <stddef.h>

extern uint32_t fake_now;
extern uint8_t fake_slot, fake_button, fake_pack;
extern uint8_t fake_tx[65536];
extern size_t fake_tx_len;
extern size_t fake_tx_free;
extern uint8_t fake_rx[4096];
extern size_t fake_rx_len, fake_rx_pos;
extern const char *fake_reader;
extern int fake_reset_requested;
extern uint16_t fake_boot;

void fake_reset_all(void);
void fake_host_send(const uint8_t *p, size_t n);
#endif
