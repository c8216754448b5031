#include "hal.h"
#include "hal_host.h"

uint32_t fake_now;
uint8_t fake_slot, fake_button, fake_pack;
uint8_t fake_tx[65536];
size_t fake_tx_len;
size_t fake_tx_free = 1024;
uint8_t fake_rx[4096];
size_t fake_rx_len, fake_rx_pos;
const char *fake_reader;
int fake_reset_requested;
uint16_t fake_boot = 1;

void fake_reset_all(void)
{
    fake_now = 0;
    fake_slot = fake_button = 0;
    fake_pack = 1;
    fake_tx_len = 0;
    fake_tx_free = 1024;
    fake_rx_len = fake_rx_pos = 0;
    fake_reader = 0;
    fake_reset_requested = 0;
}

void fake_host_send(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n && fake_rx_len < sizeof fake_rx; i++)
        fake_rx[fake_rx_len++] = p[i];
}

void hal_init(void) {}
uint32_t hal_millis(void) { return fake_now; }

int hal_host_read(void)
{
    if (fake_rx_pos < fake_rx_len)
        return fake_rx[fake_rx_pos++];
    return -1;
}

size_t hal_host_tx_free(void) { return fake_tx_free; }

void hal_host_write(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n && fake_tx_len < sizeof fake_tx; i++)
        fake_tx[fake_tx_len++] = p[i];
}

uint8_t hal_slot_blocked(void) { return fake_slot; }

int hal_reader_read(void)
{
    if (fake_reader && *fake_reader)
        return (unsigned char)*fake_reader++;
    return -1;
}

uint8_t hal_kitty_button(void) { return fake_button; }
uint8_t hal_pack_present(void) { return fake_pack; }
uint32_t hal_shoe_id(void) { return 0x5A0E0001u; }
uint16_t hal_boot_count(void) { return fake_boot; }
uint8_t hal_reset_cause(void) { return 0; }
void hal_reset(void) { fake_reset_requested = 1; }
