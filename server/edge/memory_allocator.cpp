#include "server/edge/memory_allocator.hpp"

#include <cstddef>
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// gperftools' C entry points (gperftools/tcmalloc.h, malloc_extension_c.h),
// declared weak: null unless the program was linked with tcmalloc.
extern "C" {
const char* tc_version(int* major, int* minor, const char** patch) __attribute__((weak));
int MallocExtension_GetNumericProperty(const char* property, std::size_t* value) __attribute__((weak));
int MallocExtension_SetNumericProperty(const char* property, std::size_t value) __attribute__((weak));
void MallocExtension_ReleaseFreeMemory() __attribute__((weak));
}

namespace gofish::server {

namespace {

// Whether malloc() is tcmalloc's: a block taken with malloc shows in
// tcmalloc's count of what it has handed out.
bool tcmalloc_serves_malloc() {
  if (tc_version == nullptr || MallocExtension_GetNumericProperty == nullptr) return false;
  constexpr std::size_t kProbe = std::size_t{1} << 20;
  std::size_t before = 0;
  std::size_t after = 0;
  if (!MallocExtension_GetNumericProperty("generic.current_allocated_bytes", &before)) return false;
  void* volatile probe = std::malloc(kProbe);
  const bool counted = MallocExtension_GetNumericProperty("generic.current_allocated_bytes", &after) &&
                       after >= before + kProbe;
  std::free(probe);
  return counted;
}

constexpr std::size_t kThreadCacheBytes = std::size_t{4} << 20;

}  // namespace

void MemoryAllocator::configure() {
  if (MallocExtension_SetNumericProperty != nullptr) {
    MallocExtension_SetNumericProperty("tcmalloc.max_total_thread_cache_bytes", kThreadCacheBytes);
  }
}

std::string MemoryAllocator::name() {
  if (tcmalloc_serves_malloc()) {
    int major = 0;
    int minor = 0;
    const char* patch = nullptr;
    return std::string("tcmalloc (") + tc_version(&major, &minor, &patch) + ")";
  }
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer replaces malloc() whatever the libc (GOFISH_SANITIZE).
  return "AddressSanitizer's malloc";
#elif defined(__GLIBC__)
  return "glibc malloc";
#else
  return "the system's malloc";
#endif
}

void MemoryAllocator::release_free_memory() {
  if (MallocExtension_ReleaseFreeMemory != nullptr) MallocExtension_ReleaseFreeMemory();
#if defined(__GLIBC__)
  // Also glibc's own arenas: whatever was taken before tcmalloc, or all of
  // it without tcmalloc. What connections freed sits there, and glibc gives
  // memory back to the system only from an arena's top; this returns every
  // free page.
  ::malloc_trim(0);
#endif
}

}  // namespace gofish::server
