/* The host-slot lock files of pool/os.h on every POSIX system (Linux,
 * macOS, the BSDs): flock() is the same call on all of them, so it lives
 * here once, beside the one os_<system>.c file the build picks. */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE
#elif defined(__linux__)
#define _GNU_SOURCE /* statx, AT_EMPTY_PATH */
#endif
#define _DEFAULT_SOURCE
#include "common/status.h"
#include "pool/os.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Type, owner and mode of an open file. glibc before 2.33 has fstat()
 * only as a wrapper that is linked into the binary, and exported from it;
 * statx() is a real function from glibc 2.28 on (our glibc floor), which
 * glibc emulates itself on kernels without the system call. */
static int owner_and_mode(int fd, uid_t *uid, mode_t *mode) {
#if defined(__GLIBC__)
  struct statx st;
  const unsigned want = STATX_TYPE | STATX_MODE | STATX_UID;
  if (statx(fd, "", AT_EMPTY_PATH, want, &st) != 0 || (st.stx_mask & want) != want) return -1;
  *uid = st.stx_uid;
  *mode = st.stx_mode;
#else
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  *uid = st.st_uid;
  *mode = st.st_mode;
#endif
  return 0;
}

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
  uid_t uid;
  mode_t mode;
  if (owner_and_mode(fd, &uid, &mode) != 0 || !S_ISDIR(mode) || uid != geteuid() ||
      (mode & (S_IRWXG | S_IRWXO)) != 0) {
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
