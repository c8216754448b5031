/* Run the real shoe firmware image under simavr with its host UART on a
 * pseudo-terminal, and drive the shoe's sensors from commands on stdin.
 *
 *   build/simavr_bridge build/shoe.elf
 *   -> prints "PTY /dev/pts/N" on stdout, then runs until stdin closes.
 *
 * stdin commands, one per line, carried out in order in simulated time:
 *   card SA [conf] [Ppack]   a card passes the exit slot (beam blocked 30 ms)
 *                            and the reader reports it on USART1
 *   unreadable               a card passes with no read
 *   kitty                    press and release the KITTY button
 *   empty / load             take the pack out / put one in
 *   wait MS                  let MS milliseconds of simulated time pass
 *   reset                    power-cycle the microcontroller (EEPROM kept)
 *
 * Simulated time is throttled to wall-clock time so the firmware's heartbeat
 * and the host's timeouts agree. Needs libsimavr-dev and libelf-dev.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>

#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"
#include "avr_ioport.h"
#include "avr_uart.h"
#include "parts/uart_pty.h"

#define MAXQ 4096

struct action {
    char kind;        /* 'c' card, 'u' unreadable, 'k' kitty, 'e' empty, 'l' load, 'w' wait, 'r' reset */
    char line[24];    /* reader line for a card */
    uint32_t ms;
};

static struct action queue[MAXQ];
static int q_head, q_len;
static avr_t *avr;
static avr_irq_t *beam, *button, *pack, *reader;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t sim_us(void) { return avr->cycle / (avr->frequency / 1000000u); }

static void parse_command(char *s)
{
    struct action a;
    char w1[16] = "", w2[16] = "", w3[16] = "", w4[16] = "";
    int n = sscanf(s, "%15s %15s %15s %15s", w1, w2, w3, w4);
    if (n < 1 || q_len >= MAXQ)
        return;
    memset(&a, 0, sizeof a);
    if (!strcmp(w1, "card") && n >= 2) {
        a.kind = 'c';
        snprintf(a.line, sizeof a.line, "%s%s%s%s%s\n", w2, n > 2 ? " " : "", n > 2 ? w3 : "",
                 n > 3 ? " " : "", n > 3 ? w4 : "");
    } else if (!strcmp(w1, "unreadable")) {
        a.kind = 'u';
    } else if (!strcmp(w1, "kitty")) {
        a.kind = 'k';
    } else if (!strcmp(w1, "empty")) {
        a.kind = 'e';
    } else if (!strcmp(w1, "load")) {
        a.kind = 'l';
    } else if (!strcmp(w1, "reset")) {
        a.kind = 'r';
    } else if (!strcmp(w1, "wait") && n >= 2) {
        a.kind = 'w';
        a.ms = (uint32_t)atoi(w2);
    } else {
        fprintf(stderr, "simavr_bridge: unknown command: %s\n", s);
        return;
    }
    queue[(q_head + q_len++) % MAXQ] = a;
}

static char inbuf[4096];
static size_t in_len;
static int stdin_open = 1;

static void read_stdin(void)
{
    struct pollfd p = {0, POLLIN, 0};
    ssize_t n;
    char *nl;
    if (!stdin_open || poll(&p, 1, 0) <= 0)
        return;
    n = read(0, inbuf + in_len, sizeof inbuf - 1 - in_len);
    if (n <= 0) {
        stdin_open = 0;
        return;
    }
    in_len += (size_t)n;
    inbuf[in_len] = 0;
    while ((nl = strchr(inbuf, '\n')) != NULL) {
        *nl = 0;
        parse_command(inbuf);
        memmove(inbuf, nl + 1, in_len - (size_t)(nl + 1 - inbuf) + 1);
        in_len -= (size_t)(nl + 1 - inbuf);
    }
}

/* Current action's progress, in simulated microseconds from its start. */
static int active;
static uint64_t started;
static int step;

static void run_actions(void)
{
    struct action *a;
    uint64_t t;
    if (!active) {
        if (!q_len)
            return;
        active = 1;
        started = sim_us();
        step = 0;
    }
    a = &queue[q_head];
    t = sim_us() - started;
    switch (a->kind) {
    case 'c':
    case 'u':
        if (step == 0) {
            avr_raise_irq(beam, 1);
            step = 1;
        } else if (step == 1 && t >= 5000) {
            const char *c;
            if (a->kind == 'c')
                for (c = a->line; *c; c++)
                    avr_raise_irq(reader, (uint8_t)*c);
            step = 2;
        } else if (step == 2 && t >= 30000) {
            avr_raise_irq(beam, 0);
            step = 3;
        } else if (step == 3 && t >= 60000) {
            step = 99;
        }
        break;
    case 'k':
        if (step == 0) {
            avr_raise_irq(button, 0);
            step = 1;
        } else if (step == 1 && t >= 40000) {
            avr_raise_irq(button, 1);
            step = 2;
        } else if (step == 2 && t >= 80000) {
            step = 99;
        }
        break;
    case 'e':
    case 'l':
        if (step == 0) {
            avr_raise_irq(pack, a->kind == 'e' ? 1 : 0);
            step = 1;
        } else if (t >= 100000) {
            step = 99;
        }
        break;
    case 'w':
        if (t >= (uint64_t)a->ms * 1000u)
            step = 99;
        break;
    case 'r':
        avr_reset(avr);
        step = 99;
        break;
    }
    if (step == 99) {
        active = 0;
        q_head = (q_head + 1) % MAXQ;
        q_len--;
    }
}

int main(int argc, char **argv)
{
    elf_firmware_t fw;
    static uart_pty_t pty;
    uint64_t wall0, sim0;
    unsigned long iter = 0;
    int state = cpu_Running;
    uint32_t flags = 0;
    int levels_set = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s shoe.elf\n", argv[0]);
        return 2;
    }
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "simavr_bridge: cannot read %s\n", argv[1]);
        return 1;
    }
    avr = avr_make_mcu_by_name(fw.mmcu[0] ? fw.mmcu : "atmega2560");
    if (!avr) {
        fprintf(stderr, "simavr_bridge: unknown mcu\n");
        return 1;
    }
    avr_init(avr);
    if (!fw.frequency)
        fw.frequency = 16000000;
    avr_load_firmware(avr, &fw);
    avr->frequency = fw.frequency;
    avr->log = 0;

    uart_pty_init(avr, &pty);
    uart_pty_connect(&pty, '0');
    /* the reader on USART1: bytes go straight in; keep simavr from echoing them */
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('1'), &flags);
    flags &= ~AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('1'), &flags);
    reader = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('1'), UART_IRQ_INPUT);
    beam = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('E'), 4);
    button = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('E'), 5);
    pack = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('G'), 5);
    avr_raise_irq(beam, 0);
    avr_raise_irq(button, 1);
    avr_raise_irq(pack, 0);

    printf("PTY %s\n", pty.pty.slavename);
    fflush(stdout);

    wall0 = now_us();
    sim0 = sim_us();
    while (state != cpu_Done && state != cpu_Crashed) {
        state = avr_run(avr);
        if ((++iter & 1023u) == 0) {
            uint64_t sim = sim_us() - sim0, wall = now_us() - wall0;
            read_stdin();
            if (!stdin_open && !q_len && !active)
                break;
            if (sim > wall + 2000u)
                usleep((useconds_t)(sim - wall));
        }
        if (!levels_set && sim_us() > 20000u) {
            /* hal_init() wrote PORTE/PORTG (pull-ups), which resets simavr's idea
             * of the input pins: drive them again once the firmware is up. */
            avr_raise_irq(button, 0);
            avr_raise_irq(button, 1);
            avr_raise_irq(pack, 1);
            avr_raise_irq(pack, 0);
            levels_set = 1;
        }
        if (levels_set)
            run_actions();
    }
    uart_pty_stop(&pty);
    return 0;
}
