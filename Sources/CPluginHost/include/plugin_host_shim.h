#pragma once
// What a worker and its plugin host need from Linux that Swift cannot call directly: messages
// that carry a file descriptor (SCM_RIGHTS goes through the CMSG_* macros), memfd_create,
// prctl (variadic), a posix_spawn that hands the child one socket as descriptor 3 with default
// signal handling, and atomic access to the flags the two processes share in memory.

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The descriptor a plugin host finds its socket on.
#define PH_HOST_SOCKET_FD 3

/// A connected pair of UNIX stream sockets, both close-on-exec. Returns 0 or -errno.
int ph_socketpair(int fds[2]);

/// An anonymous shared-memory file of `size` bytes (close-on-exec). Returns the fd or -errno.
int ph_memfd(const char *name, uint64_t size);

/// Sends all of `length` bytes; when `pass_fd` >= 0 it travels (SCM_RIGHTS) with the first
/// byte. Never raises SIGPIPE. Returns 0 or -errno.
int ph_send_all(int socket, const void *bytes, size_t length, int pass_fd);

/// Receives up to `capacity` bytes. A descriptor that arrives with them is stored in
/// `*received_fd` (close-on-exec), else -1 is stored; extra descriptors are closed. Returns the
/// byte count (0 at end of stream) or -errno.
ssize_t ph_receive(int socket, void *bytes, size_t capacity, int *received_fd);

/// Waits up to `timeout_ms` for `fd` to be readable (or hung up). Returns 1 when it is, 0 on
/// timeout, -errno on error (EINTR is retried by the caller's loop).
int ph_wait_readable(int fd, int timeout_ms);

/// Starts `path` with `argv` and `envp` (NULL-terminated); the child gets `child_socket` as descriptor
/// PH_HOST_SOCKET_FD, standard input from /dev/null, standard output and error shared with
/// this process's standard error, no other descriptor, every signal at its default action
/// and none blocked. Returns 0 and stores the pid, or returns an errno value.
int ph_spawn(const char *path, char *const argv[], char *const envp[], int child_socket, pid_t *pid);

/// In a plugin host, first thing: SIGKILL when the thread that started it ends, then check
/// the parent is still `expected_parent` (it may have ended before the request was made).
/// Returns 0, or -1 when the parent is gone or the request failed.
int ph_die_with_parent(pid_t expected_parent);

/// The status of a child that ended (waitpid). Blocks when `block` is nonzero; returns the pid,
/// 0 when it still runs (non-blocking), or -errno. `*signal` is the signal that ended it (0 if
/// it exited) and `*exit_code` its exit status.
pid_t ph_reap(pid_t pid, int block, int *signal, int *exit_code);

/// The short name of a signal ("SIGSEGV"), or NULL when the C library does not know it.
const char *ph_signal_name(int signal);

/// Atomic 32-bit flags in shared memory (sequentially consistent).
void ph_store_flag(uint32_t *flag, uint32_t value);
uint32_t ph_load_flag(const uint32_t *flag);

/// A plugin's `pc_is_cancelled_fn` whose context is a shared flag: nonzero once it is set.
int ph_flag_is_set(void *flag);

#ifdef __cplusplus
}
#endif
