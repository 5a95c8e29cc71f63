/* Windows. The pool's threads are winpthreads threads (mingw-w64, linked
 * statically), each a real Win32 thread, so GetCurrentThread() is the worker:
 * priorities are Win32 thread priorities (below normal for 'low', idle for
 * 'idle'), names go through SetThreadDescription, looked up at run time
 * because Windows before 10 1607 lacks it. Limits come from the job object
 * the process runs in (containers, `start /affinity`, service managers),
 * reduced from the machine's processors and memory. Arenas come from
 * VirtualAlloc: page-aligned, zeroed by the system and committed at once;
 * pool/prefault.c touches them so jobs do not pay for page faults. */
/* rand_s() (msvcrt, backed by RtlGenRandom) is declared only with this. */
#define _CRT_RAND_S
#include "common/fault.h"
#include "common/status.h"
#include "pool/os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>
#include <windows.h>
#include <winternl.h>

/* Node unloads an addon with the last environment that loaded it (a
 * worker's, often), but our threads outlive environments: a terminated
 * worker's pools close on a thread of their own, and the default pool
 * serves every environment. Once a thread of ours exists the DLL stays
 * loaded until the process ends (pinned: FreeLibrary no longer unloads it). */
static const char inside_this_library;

static void keep_loaded(void) {
  HMODULE self;
  (void)GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                           (LPCWSTR)(const void *)&inside_this_library, &self);
}

/* Windows has no signal masks to set. */
int os_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, keep_loaded);
  return KDF_PTHREAD_CREATE(thread, NULL, fn, arg);
}

typedef HRESULT(WINAPI *set_description_fn)(HANDLE, PCWSTR);

void os_thread_set_name(const char *name) {
  static set_description_fn set_description;
  static int looked_up;
  wchar_t wide[64];
  if (!looked_up) {
    /* Two threads may both look it up; both store the same pointer. */
    HMODULE kernel = GetModuleHandleW(L"kernel32.dll");
    FARPROC proc = kernel ? GetProcAddress(kernel, "SetThreadDescription") : NULL;
    memcpy(&set_description, &proc, sizeof proc); /* FARPROC to its real type */
    looked_up = 1;
  }
  if (set_description == NULL) return;
  if (MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, (int)(sizeof wide / sizeof wide[0])) == 0)
    return;
  (void)set_description(GetCurrentThread(), wide);
}

/* Windows thread levels are already relative to the process's priority
 * class, so there is no base to carry. */
int os_priority_base(void) { return 0; }

void os_thread_set_priority(pool_priority priority, int base) {
  (void)base;
  int level = THREAD_PRIORITY_NORMAL;
  switch (priority) {
    case POOL_PRIORITY_IDLE:
      level = THREAD_PRIORITY_IDLE;
      break;
    case POOL_PRIORITY_LOW:
      level = THREAD_PRIORITY_BELOW_NORMAL;
      break;
    default:
      break;
  }
  (void)SetThreadPriority(GetCurrentThread(), level);
}

/* Not needed: without os_thread_sched_stat 'auto' never asks. */
uint64_t os_process_cpu_ns(void) { return 0; }

/* Windows keeps no per-thread ready-queue wait that a thread can read:
 * 'auto' is 'low'. */
int os_thread_sched_stat(uint64_t *run_ns, uint64_t *wait_ns) {
  (void)run_ns;
  (void)wait_ns;
  return -1;
}

/* The job object's hard CPU rate cap as a number of CPUs (rounded up), or 0
 * when there is none. */
static unsigned job_cpu_cap(unsigned cpus) {
  JOBOBJECT_CPU_RATE_CONTROL_INFORMATION rate;
  if (!QueryInformationJobObject(NULL, JobObjectCpuRateControlInformation, &rate, sizeof rate,
                                 NULL))
    return 0;
  if (!(rate.ControlFlags & JOB_OBJECT_CPU_RATE_CONTROL_ENABLE) ||
      !(rate.ControlFlags & JOB_OBJECT_CPU_RATE_CONTROL_HARD_CAP))
    return 0;
  /* CpuRate is in 1/100 of a percent of the whole machine. */
  unsigned long long scaled = (unsigned long long)rate.CpuRate * cpus;
  unsigned capped = (unsigned)((scaled + 9999) / 10000);
  return capped;
}

unsigned os_cpu_count(void) {
  unsigned cpus = 0;
  DWORD_PTR process = 0, system = 0;
  if (GetProcessAffinityMask(GetCurrentProcess(), &process, &system) && process != 0) {
    for (; process != 0; process &= process - 1) cpus++; /* this processor group only */
  }
  if (cpus == 0) cpus = (unsigned)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
  if (cpus == 0) cpus = 1;
  unsigned capped = job_cpu_cap(cpus);
  if (capped != 0 && capped < cpus) cpus = capped;
  return cpus;
}

uint64_t os_memory_limit(void) {
  uint64_t limit = UINT64_MAX;
  MEMORYSTATUSEX status;
  status.dwLength = sizeof status;
  if (GlobalMemoryStatusEx(&status) && status.ullTotalPhys != 0) limit = status.ullTotalPhys;
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION job;
  if (QueryInformationJobObject(NULL, JobObjectExtendedLimitInformation, &job, sizeof job, NULL)) {
    DWORD flags = job.BasicLimitInformation.LimitFlags;
    if ((flags & JOB_OBJECT_LIMIT_PROCESS_MEMORY) && job.ProcessMemoryLimit < limit)
      limit = job.ProcessMemoryLimit;
    if ((flags & JOB_OBJECT_LIMIT_JOB_MEMORY) && job.JobMemoryLimit < limit)
      limit = job.JobMemoryLimit;
  }
  return limit;
}

void *os_arena_map(size_t size) {
  if (size == 0) size = 1;
  /* Committed and zeroed by the system; pool/prefault.c faults it in. */
  return VirtualAlloc(NULL, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void os_arena_unmap(void *mem, size_t size) {
  (void)size;
  if (mem != NULL) VirtualFree(mem, 0, MEM_RELEASE);
}

uint64_t os_monotonic_ns(void) {
  static LARGE_INTEGER frequency;
  LARGE_INTEGER now;
  if (frequency.QuadPart == 0) QueryPerformanceFrequency(&frequency);
  QueryPerformanceCounter(&now);
  /* Split to avoid overflow: seconds, then the remainder in nanoseconds. */
  uint64_t ticks = (uint64_t)now.QuadPart, hz = (uint64_t)frequency.QuadPart;
  return ticks / hz * 1000000000u + ticks % hz * 1000000000u / hz;
}

/* winpthreads accepts no clock but the wall clock for a condition, and
 * turns an absolute deadline into a relative wait by reading the wall
 * clock. Its relative wait is a Win32 wait, whose timeout no wall-clock
 * change moves: the time left comes from QueryPerformanceCounter, rounded
 * up to whole milliseconds (the wait's unit) so that it never ends just
 * short of the deadline and spins, and is computed afresh after each early
 * return. */
int os_cond_init_monotonic(pthread_cond_t *c) { return pthread_cond_init(c, NULL); }

int os_cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m, uint64_t deadline_ns) {
  for (;;) {
    uint64_t now = os_monotonic_ns();
    if (now >= deadline_ns) return ETIMEDOUT;
    uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
    struct timespec left;
    left.tv_sec = (time_t)(ms / 1000u);
    left.tv_nsec = (long)(ms % 1000u) * 1000000L;
    int rc = pthread_cond_timedwait_relative_np(c, m, &left);
    if (rc != ETIMEDOUT) return rc;
  }
}

int os_mutex_init(pthread_mutex_t *m) { return pthread_mutex_init(m, NULL); }

void os_thread_yield(void) { SwitchToThread(); }

/* The host-slot directory: no uid or mode bits to check here, so what is
 * checked is that it is a directory and not a reparse point (a link or a
 * junction, opened itself thanks to FILE_FLAG_OPEN_REPARSE_POINT); who may
 * create files in it is its ACL's business (the per-user temporary
 * folder's keeps other users out). The handle shares no delete access, so
 * that the directory is not renamed or removed while a pool has it open,
 * and lock files are opened relative to it (os_lock_open). Windows
 * cleaners (Storage Sense) do not remove files that are open. */
int os_dir_open(const char *path, os_lock *out) {
  wchar_t wide[1024];
  *out = OS_LOCK_NONE;
  if (MultiByteToWideChar(CP_UTF8, 0, path, -1, wide, (int)(sizeof wide / sizeof wide[0])) == 0)
    return STATUS_EIO;
  HANDLE h =
      CreateFileW(wide, FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
                  FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                  FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  if (h == INVALID_HANDLE_VALUE) return STATUS_EIO;
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info) ||
      !(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ||
      (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
    CloseHandle(h);
    return STATUS_EIO;
  }
  *out = (os_lock)h;
  return 0;
}

typedef NTSTATUS(NTAPI *nt_create_file_fn)(PHANDLE, ACCESS_MASK, POBJECT_ATTRIBUTES,
                                           PIO_STATUS_BLOCK, PLARGE_INTEGER, ULONG, ULONG, ULONG,
                                           ULONG, PVOID, ULONG);

/* ntdll's NtCreateFile, the one call that opens a file relative to a
 * directory handle (openat's equivalent), looked up at run time like
 * SetThreadDescription: the addon links nothing but kernel32 and msvcrt. */
static nt_create_file_fn nt_create_file(void) {
  static nt_create_file_fn fn;
  static int looked_up;
  if (!looked_up) {
    /* Two threads may both look it up; both store the same pointer. */
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    FARPROC proc = ntdll ? GetProcAddress(ntdll, "NtCreateFile") : NULL;
    memcpy(&fn, &proc, sizeof proc); /* FARPROC to its real type */
    looked_up = 1;
  }
  return fn;
}

/* Host slot lock files. A LockFileEx() lock belongs to the handle it was
 * taken through (two opens of one file conflict, even in one process) and
 * the system releases it when the handle is closed or the process ends.
 * Opened relative to the checked directory's handle, never by path;
 * FILE_OPEN_REPARSE_POINT opens a planted link itself rather than what it
 * points to, and the handle is not inheritable, so a child process never
 * keeps our lock alive. */
int os_lock_open(os_lock dir, const char *name, int create, os_lock *out) {
  wchar_t wide[64];
  *out = OS_LOCK_NONE;
  nt_create_file_fn create_file = nt_create_file();
  int len = MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, (int)(sizeof wide / sizeof wide[0]));
  if (create_file == NULL || len <= 1) return STATUS_EIO;
  UNICODE_STRING relative;
  relative.Buffer = wide;
  relative.Length = (USHORT)((len - 1) * sizeof wide[0]); /* bytes, without the NUL */
  relative.MaximumLength = (USHORT)(len * sizeof wide[0]);
  OBJECT_ATTRIBUTES attributes;
  InitializeObjectAttributes(&attributes, &relative, OBJ_CASE_INSENSITIVE, (HANDLE)dir, NULL);
  IO_STATUS_BLOCK io;
  HANDLE h;
  NTSTATUS st = create_file(
      &h, GENERIC_READ | GENERIC_WRITE | SYNCHRONIZE, &attributes, &io, NULL, FILE_ATTRIBUTE_NORMAL,
      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, create ? FILE_OPEN_IF : FILE_OPEN,
      FILE_NON_DIRECTORY_FILE | FILE_SYNCHRONOUS_IO_NONALERT | FILE_OPEN_REPARSE_POINT, NULL, 0);
  if (!NT_SUCCESS(st)) return STATUS_EIO;
  *out = (os_lock)h;
  return 0;
}

int os_lock_try(os_lock f, int shared) {
  OVERLAPPED at;
  memset(&at, 0, sizeof at);
  DWORD flags = LOCKFILE_FAIL_IMMEDIATELY | (shared ? 0 : LOCKFILE_EXCLUSIVE_LOCK);
  if (LockFileEx((HANDLE)f, flags, 0, 1, 0, &at)) return 1;
  return GetLastError() == ERROR_LOCK_VIOLATION ? 0 : STATUS_EIO;
}

void os_lock_release(os_lock f) {
  OVERLAPPED at;
  memset(&at, 0, sizeof at);
  (void)UnlockFileEx((HANDLE)f, 0, 1, 0, &at);
}

void os_lock_close(os_lock f) {
  if (f != OS_LOCK_NONE) (void)CloseHandle((HANDLE)f);
}

int os_random(void *buf, size_t len) {
  unsigned char *out = buf;
  for (size_t i = 0; i < len; i += sizeof(unsigned)) {
    unsigned r;
    if (rand_s(&r) != 0) return -1;
    size_t n = len - i < sizeof r ? len - i : sizeof r;
    memcpy(out + i, &r, n);
  }
  return 0;
}
