/* The host-slot lock files of pool/os.h on every POSIX system (Linux,
 * macOS, the BSDs): flock() is the same call on all of them, so it lives
 * here once, beside the one os_<system>.c file the build picks. */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE
#endif
#define _DEFAULT_SOURCE
#include "common/status.h"
#include "pool/os.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

/* Host slot lock files: flock() locks belong to the open file description,
 * so each os_lock_open() is a lock of its own, even within this process.
 * The path is the caller's directory (lib/ made it, owner-only) and a name
 * of ours; O_NOFOLLOW refuses a link planted in its place. */
int os_lock_open(const char *dir, const char *name, int create, os_lock *out) {
  char path[4096];
  *out = OS_LOCK_NONE;
  int n = snprintf(path, sizeof path, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= sizeof path) return STATUS_EIO;
  int fd;
  do {
    fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0600);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return STATUS_EIO;
  *out = (os_lock)fd;
  return 0;
}

int os_lock_try(os_lock f, int shared) {
  int rc;
  do {
    rc = flock((int)f, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) return 1;
  return errno == EWOULDBLOCK ? 0 : STATUS_EIO;
}

void os_lock_release(os_lock f) { (void)flock((int)f, LOCK_UN); }

void os_lock_close(os_lock f) {
  if (f != OS_LOCK_NONE) (void)close((int)f);
}

os_lock os_lock_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return OS_LOCK_NONE;
  if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
    close(fd);
    return OS_LOCK_NONE;
  }
  return (os_lock)fd;
}
