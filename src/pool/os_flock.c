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
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory (lib/ made it, owner-only) is checked on the descriptor
 * that every lock file is then opened relative to (openat), so a directory
 * swapped in at its path later is never used. */
int os_dir_open(const char *path, os_lock *out) {
  *out = OS_LOCK_NONE;
  int fd;
  do {
    fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return STATUS_EIO;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    close(fd);
    return STATUS_EIO;
  }
  (void)flock(fd, LOCK_SH | LOCK_NB); /* for cleaners of /tmp: a preference */
  *out = (os_lock)fd;
  return 0;
}

/* Host slot lock files: flock() locks belong to the open file description,
 * so each os_lock_open() is a lock of its own, even within this process.
 * The name is ours; O_NOFOLLOW refuses a link planted in its place. */
int os_lock_open(os_lock dir, const char *name, int create, os_lock *out) {
  *out = OS_LOCK_NONE;
  int fd;
  do {
    fd = openat((int)dir, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0600);
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
