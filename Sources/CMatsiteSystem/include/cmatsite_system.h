#ifndef MATSITE_SYSTEM_H
#define MATSITE_SYSTEM_H

/// Atomically swaps two paths (Linux renameat2 RENAME_EXCHANGE). Returns 0 on success,
/// else -1 with errno set (EINVAL/ENOSYS where the file system or kernel cannot).
int matsite_exchange_paths(const char *a, const char *b);

/// Flushes a directory's entries to disk.
int matsite_fsync_directory(const char *path);

/// Flushes every file of the file system holding `path` (Linux syncfs; elsewhere sync).
int matsite_sync_filesystem(const char *path);

/// A pipe whose ends both close on exec, made atomically (pipe2 O_CLOEXEC), so a child
/// spawned meanwhile by another thread never inherits it. Returns 0, or -1 with errno set.
int matsite_pipe_cloexec(int fds[2]);

#endif
