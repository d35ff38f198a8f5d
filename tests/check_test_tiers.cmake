# Every ctest test carries exactly one tier label: unit, integration, e2e,
# cluster or image (tests/CMakeLists.txt says what each means). Asks ctest
# itself for every test and for the tests of each tier (ctest -N -L), so a
# test added anywhere without a tier, or with two, fails here by name.
#   cmake -DCTEST=<ctest> -DBUILD_DIR=<build> -P check_test_tiers.cmake
cmake_minimum_required(VERSION 3.25)

set(tiers unit integration e2e cluster image)

# The tests ctest lists for these arguments, as "number=name" entries.
function(list_tests out)
  execute_process(COMMAND ${CTEST} -N --test-dir ${BUILD_DIR} ${ARGN}
                  OUTPUT_VARIABLE listing RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ctest -N ${ARGN} failed (${status})")
  endif()
  string(REPLACE ";" "," listing "${listing}")  # a list of lines, whatever the names hold
  string(REPLACE "\n" ";" lines "${listing}")
  set(found "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^ *Test +#([0-9]+): (.*)$")
      list(APPEND found "${CMAKE_MATCH_1}=${CMAKE_MATCH_2}")
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

list_tests(all)
set(summary "")
foreach(tier IN LISTS tiers)
  list_tests(in_tier -L "^${tier}$")
  list(LENGTH in_tier count)
  string(APPEND summary " ${count} ${tier}")
  foreach(entry IN LISTS in_tier)
    string(REGEX REPLACE "=.*" "" number "${entry}")
    list(APPEND tiers_of_${number} ${tier})
  endforeach()
endforeach()

set(problems "")
list(LENGTH all total)
foreach(entry IN LISTS all)
  string(REGEX REPLACE "=.*" "" number "${entry}")
  string(REGEX REPLACE "^[0-9]+=" "" name "${entry}")
  list(LENGTH tiers_of_${number} count)
  if(NOT count EQUAL 1)
    string(REPLACE ";" ", " shown "${tiers_of_${number}}")
    string(APPEND problems "  ${name}: tiers [${shown}]\n")
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "these tests need exactly one tier label (${tiers}):\n${problems}")
endif()
message(STATUS "${total} tests:${summary}")
