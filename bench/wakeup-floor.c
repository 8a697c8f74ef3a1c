/*
 * The wake-up floor: how late a lone thread wakes on this host, which bounds how fast any
 * message can cross a thread boundary here. The thread sleeps 1 ms at a time (an absolute
 * deadline on the monotonic clock) and records how far past the deadline it runs again.
 * Built and run by bench/wakeup-floor:  cc -O2 -o wakeup-floor bench/wakeup-floor.c
 *
 *   wakeup-floor normal|fifo SECONDS
 *
 * fifo asks for SCHED_FIFO 50 (root or CAP_SYS_NICE; a worker never asks for it) and says so
 * when refused. Prints one line: the policy, then p50 / p99 / p99.9 / max lateness in ms.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "normal") && strcmp(argv[1], "fifo"))) {
        fprintf(stderr, "usage: wakeup-floor normal|fifo SECONDS\n");
        return 2;
    }
    if (!strcmp(argv[1], "fifo")) {
        struct sched_param param = {.sched_priority = 50};
        if (sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
            printf("fifo       refused (needs root or CAP_SYS_NICE)\n");
            return 0;
        }
    }
    int count = atoi(argv[2]) * 1000;
    if (count <= 0) count = 1000;
    double *late = malloc(sizeof(double) * (size_t)count);
    struct timespec deadline, now;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    for (int i = 0; i < count; i++) {
        deadline.tv_nsec += 1000000;
        if (deadline.tv_nsec >= 1000000000) {
            deadline.tv_nsec -= 1000000000;
            deadline.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        late[i] = (double)(now.tv_sec - deadline.tv_sec) * 1e3 + (double)(now.tv_nsec - deadline.tv_nsec) / 1e6;
        if (late[i] > 0.5) deadline = now;  /* a long delay does not make the next sleeps short */
    }
    qsort(late, (size_t)count, sizeof(double), compare);
    printf("%-10s %.3f / %.3f / %.3f / %.3f ms\n", argv[1], late[count / 2], late[count * 99 / 100],
        late[count * 999 / 1000], late[count - 1]);
    free(late);
    return 0;
}
