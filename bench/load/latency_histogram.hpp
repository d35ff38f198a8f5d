// Latencies in microseconds, counted in fixed log-linear buckets (as in
// HdrHistogram): exact below 64 us, then 64 buckets per power of two, so a
// percentile is within 1.6% of the true value. Recording is an index
// computation and an increment: no allocation after construction, which keeps
// the load client cheap next to the server it measures.
#pragma once

#include <cstdint>
#include <vector>

namespace gofish::load {

class LatencyHistogram {
 public:
  LatencyHistogram();

  void record(std::uint64_t micros);
  void clear();
  // Adds every sample of `other`.
  void merge(const LatencyHistogram& other);

  std::uint64_t count() const { return count_; }
  std::uint64_t max() const { return max_; }
  double mean() const;
  // The smallest recorded bucket value at or below which `percent` of the
  // samples lie (the bucket's upper bound, never above max()); 0 when empty.
  std::uint64_t percentile(double percent) const;

  // Bucket arithmetic, public for the tests.
  static std::size_t bucket_of(std::uint64_t micros);
  static std::uint64_t bucket_upper_bound(std::size_t bucket);

 private:
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  std::uint64_t max_ = 0;
  long double sum_ = 0;
};

}  // namespace gofish::load
