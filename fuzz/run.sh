#!/usr/bin/env bash
# Builds fuzz/parse_client_message_fuzz.cpp with clang's libFuzzer and ASan +
# UBSan, seeds a corpus from protocol/README.md's examples, and fuzzes.
#   fuzz/run.sh            60 seconds
#   fuzz/run.sh 600        ten minutes
# Output (binary, corpus, crash files) goes to $FUZZ_DIR, default build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
out=${FUZZ_DIR:-build-fuzz}
cxx=${CXX_FUZZ:-clang++}
mkdir -p "$out/corpus" "$out/crashes"

# Engine and protocol sources, compiled straight in: the fuzzer needs its own
# instrumentation flags on all of them, which the CMake build does not use.
sources=(fuzz/parse_client_message_fuzz.cpp protocol/*.cpp engine/*.cpp)
# ICU checks display names (protocol/text.cpp); several -l flags, split on purpose below.
icu_libs=$(pkg-config --libs icu-uc icu-i18n)
if [[ ! -x "$out/parse_client_message_fuzz" ]] || [[ -n "$(find "${sources[@]}" protocol/*.hpp engine/*.hpp -newer "$out/parse_client_message_fuzz" | head -n 1)" ]]; then
  echo "building $out/parse_client_message_fuzz with $cxx"
  "$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I. \
    "${sources[@]}" $icu_libs -o "$out/parse_client_message_fuzz"
fi

# Seeds: every client example and hostile frame of the README, one per file.
python3 - "$out/corpus" <<'PY'
import hashlib, json, os, re, sys
out = sys.argv[1]
text = open('protocol/README.md', encoding='utf-8').read()
seeds = []
for info, body in re.findall(r'^```([^\n]*)\n(.*?)^```', text, flags=re.S | re.M):
    if info == 'json client':
        try:
            json.loads(body)
            seeds.append(body)
        except ValueError:
            seeds.extend(line for line in body.splitlines() if line.strip())
    elif info == 'hostile':
        seeds.extend(line.split(None, 1)[1] for line in body.splitlines() if line.strip())
    elif info == 'session':
        seeds.extend(line.split(' ', 1)[1] for line in body.splitlines() if line[:1] in 'AB' and '>' in line[:3])
for seed in seeds:
    data = seed.encode('utf-8')
    with open(os.path.join(out, hashlib.sha1(data).hexdigest()), 'wb') as f:
        f.write(data)
print(f"{len(seeds)} seed frames")
PY

"$out/parse_client_message_fuzz" "$out/corpus" \
  -dict=fuzz/protocol.dict -max_len=4200 -max_total_time="$seconds" -timeout=5 \
  -artifact_prefix="$out/crashes/" -print_final_stats=1
