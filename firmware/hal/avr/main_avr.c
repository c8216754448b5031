/* Firmware entry point for the Arduino Mega 2560 build. */
#include <avr/io.h>
#include "hal.h"
#include "shoe.h"

#ifdef SIMAVR
#include "avr_mcu_section.h"
AVR_MCU(F_CPU, "atmega2560");
#endif

static struct shoe shoe;

int main(void)
{
    hal_init();
    shoe_init(&shoe);
    for (;;)
        shoe_poll(&shoe);
}
