/*
 * LD_PRELOAD shim for Debian's linux.uml (6.1) on hosts whose XSAVE area is larger than the
 * 832 bytes UML 6.1 assumes (AVX-512 or AMX CPUs). The host kernel accepts
 * PTRACE_SETREGSET(NT_X86_XSTATE) only with the full XSAVE size and answers EFAULT otherwise,
 * so UML's first context switch kills init ("ptrace set fp regs failed, errno = 14").
 *
 * The shim forwards every ptrace call unchanged except the two XSTATE regset calls: it reads
 * the whole XSAVE area, hands UML the prefix it asked for (legacy + header + AVX upper halves),
 * and on SETREGSET writes UML's prefix over a fresh full read. State beyond that prefix
 * (AVX-512, AMX) is left as the host process holds it; the lab tells glibc inside UML not to use
 * AVX-512 (GLIBC_TUNABLES), so no guest process depends on it being switched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

typedef long (*ptrace_fn)(int, pid_t, void *, void *);

long ptrace(enum __ptrace_request req, ...) {
  static ptrace_fn real;
  static __thread unsigned char whole_area[65536] __attribute__((aligned(64)));
  va_list ap;
  va_start(ap, req);
  pid_t pid = va_arg(ap, pid_t);
  void *addr = va_arg(ap, void *);
  void *data = va_arg(ap, void *);
  va_end(ap);
  if (!real) real = (ptrace_fn)dlsym(RTLD_NEXT, "ptrace");
  if ((req != PTRACE_GETREGSET && req != PTRACE_SETREGSET) || (long)addr != NT_X86_XSTATE)
    return real(req, pid, addr, data);

  struct iovec *wanted = data, whole = {whole_area, sizeof whole_area};
  long rc = real(PTRACE_GETREGSET, pid, addr, &whole);
  if (rc < 0) return rc;
  size_t n = wanted->iov_len < whole.iov_len ? wanted->iov_len : whole.iov_len;
  if (req == PTRACE_GETREGSET) {
    memcpy(wanted->iov_base, whole_area, n);
    wanted->iov_len = n;
    return 0;
  }
  memcpy(whole_area, wanted->iov_base, n);
  return real(PTRACE_SETREGSET, pid, addr, &whole);
}
