#define _GNU_SOURCE
#include "plugin_host_shim.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int ph_socketpair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0 ? 0 : -errno;
}

int ph_memfd(const char *name, uint64_t size) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return -errno;
    if (ftruncate(fd, (off_t)size) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

int ph_send_all(int socket, const void *bytes, size_t length, int pass_fd) {
    const char *next = bytes;
    size_t left = length;
    int attach = pass_fd >= 0;
    while (left > 0 || attach) {
        struct iovec iov = {.iov_base = (void *)next, .iov_len = left};
        union {
            char buffer[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } control;
        struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1};
        if (attach) {
            memset(&control, 0, sizeof control);
            message.msg_control = control.buffer;
            message.msg_controllen = sizeof control.buffer;
            struct cmsghdr *header = CMSG_FIRSTHDR(&message);
            header->cmsg_level = SOL_SOCKET;
            header->cmsg_type = SCM_RIGHTS;
            header->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(header), &pass_fd, sizeof(int));
        }
        ssize_t sent = sendmsg(socket, &message, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        attach = 0;  /* the descriptor went with the first byte sent */
        next += sent;
        left -= (size_t)sent;
    }
    return 0;
}

ssize_t ph_receive(int socket, void *bytes, size_t capacity, int *received_fd) {
    *received_fd = -1;
    struct iovec iov = {.iov_base = bytes, .iov_len = capacity};
    union {
        char buffer[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer};
    ssize_t received;
    do {
        received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return -errno;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
            if (*received_fd < 0) *received_fd = fd;
            else close(fd);  /* the protocol passes one descriptor per message */
        }
    }
    return received;
}

int ph_wait_readable(int fd, int timeout_ms) {
    struct pollfd entry = {.fd = fd, .events = POLLIN};
    int ready = poll(&entry, 1, timeout_ms);
    if (ready < 0) return -errno;
    return ready > 0 ? 1 : 0;
}

int ph_spawn(const char *path, char *const argv[], char *const envp[], int child_socket, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int error = posix_spawn_file_actions_init(&actions);
    if (error != 0) return error;
    error = posix_spawnattr_init(&attributes);
    if (error != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return error;
    }
    /* dup2 onto itself would keep close-on-exec set: move the socket out of the way first. */
    int source = child_socket;
    int moved = -1;
    if (source == PH_HOST_SOCKET_FD) {
        moved = fcntl(source, F_DUPFD_CLOEXEC, PH_HOST_SOCKET_FD + 1);
        if (moved < 0) error = errno;
        source = moved;
    }
    if (error == 0) error = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    /* A plugin's prints must never reach this process's standard output (`cluster plugins
     * --json` writes its listing there). */
    if (error == 0) error = posix_spawn_file_actions_adddup2(&actions, 2, 1);
    if (error == 0) error = posix_spawn_file_actions_adddup2(&actions, source, PH_HOST_SOCKET_FD);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    if (error == 0) error = posix_spawn_file_actions_addclosefrom_np(&actions, PH_HOST_SOCKET_FD + 1);
#endif
    sigset_t everything, nothing;
    sigfillset(&everything);
    sigemptyset(&nothing);
    /* Signals this process ignores or blocks (SIGPIPE, the ones a signal-waiting thread takes)
     * would otherwise stay so in the host. */
    if (error == 0) error = posix_spawnattr_setsigdefault(&attributes, &everything);
    if (error == 0) error = posix_spawnattr_setsigmask(&attributes, &nothing);
    if (error == 0) error = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    if (error == 0) error = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    if (moved >= 0) close(moved);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return error;
}

int ph_die_with_parent(pid_t expected_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    return getppid() == expected_parent ? 0 : -1;
}

pid_t ph_reap(pid_t pid, int block, int *signal, int *exit_code) {
    int status = 0;
    pid_t reaped;
    do {
        reaped = waitpid(pid, &status, block ? 0 : WNOHANG);
    } while (reaped < 0 && errno == EINTR);
    if (reaped < 0) return -errno;
    *signal = 0;
    *exit_code = 0;
    if (reaped == pid) {
        if (WIFSIGNALED(status)) *signal = WTERMSIG(status);
        else if (WIFEXITED(status)) *exit_code = WEXITSTATUS(status);
    }
    return reaped;
}

const char *ph_signal_name(int signal) {
    switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGPIPE: return "SIGPIPE";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGALRM: return "SIGALRM";
    default: return NULL;
    }
}

void ph_store_flag(uint32_t *flag, uint32_t value) { __atomic_store_n(flag, value, __ATOMIC_SEQ_CST); }

uint32_t ph_load_flag(const uint32_t *flag) { return __atomic_load_n(flag, __ATOMIC_SEQ_CST); }

int ph_flag_is_set(void *flag) { return __atomic_load_n((const uint32_t *)flag, __ATOMIC_RELAXED) != 0; }
