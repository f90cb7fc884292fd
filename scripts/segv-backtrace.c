// A C backtrace on SIGSEGV/SIGBUS/SIGABRT for a process we cannot run under gdb (the GPU machine
// has none): build it as a shared object and LD_PRELOAD it. The handler runs on an alternate
// stack, so a stack overflow is reported too; it writes the frames (addresses and symbols,
// plus /proc/self/maps for the addresses of stripped libraries) to the file named by
// $SEGV_BACKTRACE_FILE (default stderr), then re-raises the signal.
//   gcc -shared -fPIC -O1 -o /tmp/segv.so scripts/segv-backtrace.c
//   SEGV_BACKTRACE_FILE=/tmp/segv.txt LD_PRELOAD=/tmp/segv.so python3 -m pytest ...
// A Python program that installs its own handler (pytest's faulthandler) replaces this one: run
// pytest with -p no:faulthandler.
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char alternate_stack[1 << 16];

static void copy_maps(int out) {
  char buffer[4096];
  const int maps = open("/proc/self/maps", O_RDONLY);
  if (maps < 0)
    return;
  ssize_t n;
  while ((n = read(maps, buffer, sizeof buffer)) > 0)
    (void)!write(out, buffer, (size_t)n);
  close(maps);
}

static void on_fault(int signal_number, siginfo_t* info, void* context) {
  (void)context;
  const char* path = getenv("SEGV_BACKTRACE_FILE");
  int out = path != NULL ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : 2;
  if (out < 0)
    out = 2;
  char line[128];
  const char* name = strsignal(signal_number);
  (void)!write(out, "== fatal signal: ", 17);
  (void)!write(out, name, strlen(name));
  const unsigned long address = (unsigned long)info->si_addr;
  int k = 0;
  line[k++] = ' ';
  line[k++] = 'a';
  line[k++] = 't';
  line[k++] = ' ';
  line[k++] = '0';
  line[k++] = 'x';
  for (int shift = 60; shift >= 0; shift -= 4)
    line[k++] = "0123456789abcdef"[(address >> shift) & 15];
  line[k++] = '\n';
  (void)!write(out, line, (size_t)k);
  void* frames[128];
  const int depth = backtrace(frames, 128);
  backtrace_symbols_fd(frames, depth, out);
  (void)!write(out, "== maps\n", 8);
  copy_maps(out);
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

__attribute__((constructor)) static void install(void) {
  stack_t stack = {0};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  sigaltstack(&stack, NULL);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, NULL);
  sigaction(SIGBUS, &action, NULL);
  sigaction(SIGABRT, &action, NULL);
}
