/* Hardware-abstraction layer: everything the shoe logic needs from a board.
 * hal/avr/ implements it for an Arduino Mega 2560 (ATmega2560), hal/host/ for
 * the unit tests. See docs/shoe.md for the pinout. */
#ifndef SHOE_HAL_H
#define SHOE_HAL_H

#include <stdint.h>
#include <stddef.h>

void hal_init(void);
uint32_t hal_millis(void);

/* Host link (USART0 on the Mega, the USB-serial port). */
int hal_host_read(void);                   /* next byte or -1 */
size_t hal_host_tx_free(void);             /* bytes that can be queued without blocking */
void hal_host_write(const uint8_t *p, size_t n);

/* Card sensor: the exit-slot light barrier and the card reader. */
uint8_t hal_slot_blocked(void);            /* raw level, 1 = a card interrupts the beam */
int hal_reader_read(void);                 /* next byte from the reader (USART1) or -1 */
uint8_t hal_kitty_button(void);            /* raw level, 1 = pressed */
uint8_t hal_pack_present(void);            /* raw level, 1 = cards rest on the follower switch */

/* Identity and restart. */
uint32_t hal_shoe_id(void);
uint16_t hal_boot_count(void);             /* incremented once per boot (EEPROM) */
uint8_t hal_reset_cause(void);             /* 0 power-on, 1 external, 2 brown-out, 3 watchdog, 4 host */
void hal_reset(void);                      /* restart the microcontroller (RESET command) */

#endif
