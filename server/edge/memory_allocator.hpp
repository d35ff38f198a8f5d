// Which malloc the server runs on, and how it hands freed memory back.
//
// The server links gperftools' tcmalloc (GOFISH_ALLOCATOR, the top-level
// CMakeLists.txt) unless built with the sanitizers, which bring their own.
// Nothing here needs its headers: tcmalloc's functions are weak references,
// present only when the executable was linked with it, so the library and
// the test programs built on it run on glibc's malloc with the same code.
#pragma once

#include <string>

namespace gofish::server {

class MemoryAllocator {
 public:
  // "tcmalloc (gperftools 2.10)", "glibc malloc" or "the system's malloc":
  // the allocator that malloc() and operator new actually reach, checked by
  // allocating through malloc, not by what was linked.
  static std::string name();
  // Settles the allocator's caches before the server starts. tcmalloc's
  // threads may each keep freed blocks for themselves, up to 32 MiB in all
  // by default; the server keeps that to 4 MiB (kThreadCacheBytes), so that
  // what a burst of slow readers took goes back to the system once they
  // close (tests/server/abuse_test.cpp), not only to those caches.
  static void configure();
  // Returns every free page to the system (tcmalloc's ReleaseFreeMemory, or
  // glibc's malloc_trim), wherever it sits in the heap.
  static void release_free_memory();
};

}  // namespace gofish::server
