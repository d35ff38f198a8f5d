#include "bench/load/latency_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace gofish::load {

namespace {

constexpr int kSubBits = 6;  // 64 buckets per power of two
constexpr std::uint64_t kSubCount = std::uint64_t{1} << kSubBits;
// Values up to 2^40 us (twelve days) have a bucket; larger ones share the last.
constexpr int kMaxExponent = 40;
constexpr std::size_t kBucketCount = kSubCount + (kMaxExponent - kSubBits) * kSubCount;

}  // namespace

LatencyHistogram::LatencyHistogram() : buckets_(kBucketCount, 0) {}

std::size_t LatencyHistogram::bucket_of(std::uint64_t micros) {
  if (micros < kSubCount) return static_cast<std::size_t>(micros);
  const int exponent = static_cast<int>(std::bit_width(micros)) - 1;  // >= kSubBits
  if (exponent >= kMaxExponent) return kBucketCount - 1;
  const int shift = exponent - kSubBits;
  const std::uint64_t sub = (micros >> shift) - kSubCount;  // 0..63
  return static_cast<std::size_t>(kSubCount + static_cast<std::uint64_t>(shift) * kSubCount + sub);
}

std::uint64_t LatencyHistogram::bucket_upper_bound(std::size_t bucket) {
  if (bucket < kSubCount) return bucket;
  const std::uint64_t shift = (bucket - kSubCount) / kSubCount;
  const std::uint64_t sub = (bucket - kSubCount) % kSubCount;
  return ((kSubCount + sub + 1) << shift) - 1;
}

void LatencyHistogram::record(std::uint64_t micros) {
  ++buckets_[bucket_of(micros)];
  ++count_;
  max_ = std::max(max_, micros);
  sum_ += static_cast<long double>(micros);
}

void LatencyHistogram::clear() {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  count_ = 0;
  max_ = 0;
  sum_ = 0;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_ / static_cast<long double>(count_));
}

std::uint64_t LatencyHistogram::percentile(double percent) const {
  if (count_ == 0) return 0;
  const double clamped = std::clamp(percent, 0.0, 100.0);
  // The rank of the sample that `percent` of the samples do not exceed.
  const auto wanted = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(clamped / 100.0 * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= wanted) return std::min(bucket_upper_bound(i), max_);
  }
  return max_;
}

}  // namespace gofish::load
