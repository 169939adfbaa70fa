#define _GNU_SOURCE
#include "cmatsite_system.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int matsite_exchange_paths(const char *a, const char *b) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int matsite_pipe_cloexec(int fds[2]) {
#ifdef __linux__
    return pipe2(fds, O_CLOEXEC);
#else
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

int matsite_fsync_directory(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return -1;
    int result = fsync(fd);
    close(fd);
    return result;
}

int matsite_sync_filesystem(const char *path) {
#ifdef __linux__
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return -1;
    int result = syncfs(fd);
    close(fd);
    return result;
#else
    (void)path;
    sync();
    return 0;
#endif
}
