/* HAL for the Arduino Mega 2560 (ATmega2560, 16 MHz).
 *
 *   USART0 (pins 0/1, the board's USB-serial)  host link, 115200 8N1
 *   USART1 (RX1 = pin 19 / PD2)                card reader, 9600 8N1, ASCII lines
 *   pin 2  (PE4)  exit-slot light barrier, input, 1 = beam interrupted
 *   pin 3  (PE5)  KITTY button to GND, internal pull-up (pressed = 0)
 *   pin 4  (PG5)  pack-follower switch to GND, pull-up (cards present = 0)
 *   pin 13 (PB7)  LED: on while a card is in the slot
 *   Timer0 CTC    1 ms tick
 *   EEPROM 0..1   boot counter, 4..7 shoe id (0xFFFFFFFF = unprogrammed)
 */
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/eeprom.h>
#include <avr/wdt.h>
#include <util/atomic.h>

#include "hal.h"

#define HOST_BAUD 115200UL
#define READER_BAUD 9600UL
#define TX_SIZE 256u
#define RX_SIZE 128u
#define RD_SIZE 32u

static volatile uint32_t millis_count;
static volatile uint8_t tx_buf[TX_SIZE];
static volatile uint8_t tx_head, tx_tail; /* 8-bit indices wrap at 256 = TX_SIZE */
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;
static volatile uint8_t rd_buf[RD_SIZE];
static volatile uint8_t rd_head, rd_tail;
static uint8_t reset_cause;
/* .init3 runs before .bss is cleared, so the raw flags go to .noinit. */
static uint8_t mcusr_saved __attribute__((section(".noinit")));
static uint16_t boot_count;

/* Survives a watchdog reset (not a power cycle): marks a host-requested RESET. */
static uint8_t host_reset_magic __attribute__((section(".noinit")));
#define HOST_RESET_MAGIC 0xA5u

/* Runs before main: read and clear the reset flags, stop a running watchdog. */
void early_init(void) __attribute__((naked, used, section(".init3")));
void early_init(void)
{
    mcusr_saved = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

ISR(TIMER0_COMPA_vect) { millis_count++; }

ISR(USART0_RX_vect)
{
    uint8_t b = UDR0, next = (uint8_t)((rx_head + 1u) % RX_SIZE);
    if (next != rx_tail) { /* full: drop; the host's RESEND logic recovers */
        rx_buf[rx_head] = b;
        rx_head = next;
    }
}

ISR(USART0_UDRE_vect)
{
    if (tx_head == tx_tail) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (uint8_t)(tx_tail + 1u);
}

ISR(USART1_RX_vect)
{
    uint8_t b = UDR1, next = (uint8_t)((rd_head + 1u) % RD_SIZE);
    if (next != rd_tail) {
        rd_buf[rd_head] = b;
        rd_head = next;
    }
}

void hal_init(void)
{
    uint8_t cause = mcusr_saved;
    /* 1 ms tick: 16 MHz / 64 / 250 */
    TCCR0A = _BV(WGM01);
    TCCR0B = _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);
    /* host UART, double speed: UBRR = 16 MHz / (8 * 115200) - 1 = 16 (-0.8 %) */
    UCSR0A = _BV(U2X0);
    UBRR0 = (uint16_t)(F_CPU / (8UL * HOST_BAUD) - 1UL);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    /* reader UART, receive only */
    UCSR1A = 0;
    UBRR1 = (uint16_t)(F_CPU / (16UL * READER_BAUD) - 1UL);
    UCSR1C = _BV(UCSZ11) | _BV(UCSZ10);
    UCSR1B = _BV(RXEN1) | _BV(RXCIE1);
    /* pins */
    DDRE &= (uint8_t)~(_BV(PE4) | _BV(PE5));
    PORTE |= _BV(PE5);               /* pull-up on the button; the beam module drives PE4 */
    DDRG &= (uint8_t)~_BV(PG5);
    PORTG |= _BV(PG5);
    DDRB |= _BV(PB7);
    /* boot counter */
    boot_count = (uint16_t)(eeprom_read_word((const uint16_t *)0) + 1u);
    eeprom_update_word((uint16_t *)0, boot_count);
    if (host_reset_magic == HOST_RESET_MAGIC && (cause & _BV(WDRF)))
        reset_cause = 4;
    else if (cause & _BV(WDRF))
        reset_cause = 3;
    else if (cause & _BV(BORF))
        reset_cause = 2;
    else if (cause & _BV(EXTRF))
        reset_cause = 1;
    else
        reset_cause = 0;
    host_reset_magic = 0;
    sei();
}

uint32_t hal_millis(void)
{
    uint32_t m;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { m = millis_count; }
    return m;
}

int hal_host_read(void)
{
    uint8_t b;
    if (rx_head == rx_tail)
        return -1;
    b = rx_buf[rx_tail];
    rx_tail = (uint8_t)((rx_tail + 1u) % RX_SIZE);
    return b;
}

size_t hal_host_tx_free(void)
{
    return (size_t)(TX_SIZE - 1u - (uint8_t)(tx_head - tx_tail));
}

void hal_host_write(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        while ((uint8_t)(tx_head + 1u) == tx_tail)
            ; /* full: wait for the UDRE interrupt to drain a byte */
        tx_buf[tx_head] = p[i];
        tx_head = (uint8_t)(tx_head + 1u);
        UCSR0B |= _BV(UDRIE0);
    }
}

uint8_t hal_slot_blocked(void)
{
    uint8_t b = (PINE & _BV(PE4)) ? 1u : 0u;
    if (b)
        PORTB |= _BV(PB7);
    else
        PORTB &= (uint8_t)~_BV(PB7);
    return b;
}

int hal_reader_read(void)
{
    uint8_t b;
    if (rd_head == rd_tail)
        return -1;
    b = rd_buf[rd_tail];
    rd_tail = (uint8_t)((rd_tail + 1u) % RD_SIZE);
    return b;
}

uint8_t hal_kitty_button(void) { return (PINE & _BV(PE5)) ? 0u : 1u; }
uint8_t hal_pack_present(void) { return (PING & _BV(PG5)) ? 0u : 1u; }

uint32_t hal_shoe_id(void)
{
    uint32_t id = eeprom_read_dword((const uint32_t *)4);
    return id == 0xFFFFFFFFUL ? 0x5A0E0000UL : id;
}

uint16_t hal_boot_count(void) { return boot_count; }
uint8_t hal_reset_cause(void) { return reset_cause; }

void hal_reset(void)
{
    host_reset_magic = HOST_RESET_MAGIC;
    while (tx_head != tx_tail)
        ; /* let the last frame out */
    wdt_enable(WDTO_15MS);
    for (;;)
        ;
}
