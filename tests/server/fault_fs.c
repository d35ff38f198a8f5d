/* A failing disk for the store-outage tests (issue 30), without root: loaded
 * into gofish-server with LD_PRELOAD, it makes the calls that write to files
 * under one directory fail as a full disk, a failing disk or a file system
 * remounted read-only would, for as long as a control file says so.
 *
 *   GOFISH_FAULT_DIR      the directory whose files fail (a canonical path)
 *   GOFISH_FAULT_CONTROL  a file holding one word: "full" (ENOSPC), "eio"
 *                         (EIO) or "rofs" (EROFS); anything else, or no
 *                         file, and every call goes through
 *
 * The control file is read again at most every 10 ms, so a test turns the
 * fault on and off by writing it. Writes (write, pwrite, writev, their 64-bit
 * twins), flushes (fsync, fdatasync) and size changes (ftruncate,
 * fallocate) of a file under the directory fail with the word's errno, as
 * the kernel would report them. SQLite's shared-memory index is written
 * through a mapping and keeps working, as it does on a full disk. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static atomic_llong next_read_ns;
static atomic_int fault_errno;

static long long now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* The errno the control file asks for now, 0 for none. */
static int current_fault(void) {
  const long long now = now_ns();
  if (now < atomic_load(&next_read_ns)) return atomic_load(&fault_errno);
  atomic_store(&next_read_ns, now + 10000000LL);
  const char* control = getenv("GOFISH_FAULT_CONTROL");
  int chosen = 0;
  if (control != NULL) {
    const int fd = open(control, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char word[16] = {0};
      const ssize_t n = read(fd, word, sizeof word - 1);
      close(fd);
      if (n > 0) {
        if (strncmp(word, "full", 4) == 0) chosen = ENOSPC;
        if (strncmp(word, "eio", 3) == 0) chosen = EIO;
        if (strncmp(word, "rofs", 4) == 0) chosen = EROFS;
      }
    }
  }
  atomic_store(&fault_errno, chosen);
  return chosen;
}

/* The errno a call on `fd` fails with now, 0 when it goes through. */
static int fault_for(int fd) {
  const int chosen = current_fault();
  if (chosen == 0) return 0;
  const char* dir = getenv("GOFISH_FAULT_DIR");
  if (dir == NULL || *dir == '\0') return 0;
  char link[64];
  char path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  const size_t length = strlen(dir);
  if (strncmp(path, dir, length) != 0 || (path[length] != '/' && path[length] != '\0')) return 0;
  return chosen;
}

/* The libc function this one stands in front of, looked up once. */
#define REAL(name)                                                               \
  ({                                                                             \
    static __typeof__(&name) real_##name;                                        \
    if (real_##name == NULL) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name); \
    real_##name;                                                                 \
  })
#define FAIL_OR(fd, fail_value, call) \
  do {                                \
    const int e = fault_for(fd);      \
    if (e != 0) {                     \
      errno = e;                      \
      return fail_value;              \
    }                                 \
    return call;                      \
  } while (0)

ssize_t write(int fd, const void* buf, size_t count) { FAIL_OR(fd, -1, REAL(write)(fd, buf, count)); }
ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  FAIL_OR(fd, -1, REAL(pwrite)(fd, buf, count, offset));
}
ssize_t pwrite64(int fd, const void* buf, size_t count, off64_t offset) {
  FAIL_OR(fd, -1, REAL(pwrite64)(fd, buf, count, offset));
}
ssize_t writev(int fd, const struct iovec* iov, int count) { FAIL_OR(fd, -1, REAL(writev)(fd, iov, count)); }
ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t offset) {
  FAIL_OR(fd, -1, REAL(pwritev)(fd, iov, count, offset));
}
int fsync(int fd) { FAIL_OR(fd, -1, REAL(fsync)(fd)); }
int fdatasync(int fd) { FAIL_OR(fd, -1, REAL(fdatasync)(fd)); }
int ftruncate(int fd, off_t length) { FAIL_OR(fd, -1, REAL(ftruncate)(fd, length)); }
int ftruncate64(int fd, off64_t length) { FAIL_OR(fd, -1, REAL(ftruncate64)(fd, length)); }
int fallocate(int fd, int mode, off_t offset, off_t length) {
  FAIL_OR(fd, -1, REAL(fallocate)(fd, mode, offset, length));
}
int posix_fallocate(int fd, off_t offset, off_t length) {
  const int e = fault_for(fd);
  if (e != 0) return e; /* returns the error, not -1 */
  return REAL(posix_fallocate)(fd, offset, length);
}
