# CTest splits a discovered test's name at ';' (a CMake list separator), and
# the halves then match no doctest case, so they pass without running
# anything. This check keeps every TEST_CASE name free of semicolons.
file(GLOB_RECURSE sources "${ROOT}/tests/*.cpp")
set(bad "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines REGEX "TEST_CASE\\(\"[^\"]*")
  foreach(line IN LISTS lines)
    # file(STRINGS) keeps a ';' in a line escaped, so the line stays whole.
    if(line MATCHES "TEST_CASE\\(\"[^\"]*;")
      string(APPEND bad "\n  ${source}: ${line}")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "test case names with ';' (ctest would run nothing for them):${bad}")
endif()
message(STATUS "every test case name is free of ';'")
