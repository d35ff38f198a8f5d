# The repository speaks for itself: no tracked file may point at a file
# outside it (a sibling folder reached with "../", or an absolute path of the
# machine it was written on). Such a reference works on one checkout and
# nowhere else; docs/RULES.md and docs/TRANSCRIPT.md say in the project's own
# words what those files said.
#
#   cmake -DROOT=<source dir> -P check_self_contained.cmake
#   cmake -DSELF_TEST=ON -DWORK_DIR=<scratch dir> -P check_self_contained.cmake
#
# The files are those git tracks (git ls-files) or, outside a git checkout
# (the container image's build context has no .git), every file under ROOT
# except build folders and node_modules. SELF_TEST plants a reference in a
# scratch tree and checks that the scan reports it, so the check can fail.
cmake_minimum_required(VERSION 3.25)

# Spelled in pieces so that this file does not match itself.
set(sibling "../shar")
string(APPEND sibling "ed")
set(absolute "/wor")
string(APPEND absolute "k/")
string(REPLACE "." "\\." sibling_pattern "${sibling}")
set(forbidden "(${sibling_pattern}|${absolute})")

# Sets `out_var` to "file:line: text" for every offending line under `root`.
function(find_outside_references root out_var)
  set(files "")
  if(EXISTS "${root}/.git")
    execute_process(COMMAND git -C "${root}" -c core.quotepath=off ls-files RESULT_VARIABLE rc
                    OUTPUT_VARIABLE listing ERROR_QUIET)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" files "${listing}")
    endif()
  endif()
  if(NOT files)
    file(GLOB_RECURSE paths LIST_DIRECTORIES false RELATIVE "${root}" "${root}/*")
    foreach(path IN LISTS paths)
      if(NOT path MATCHES "(^|/)(build[^/]*|out|data|node_modules|\\.git)/")
        list(APPEND files "${path}")
      endif()
    endforeach()
  endif()
  set(found "")
  foreach(path IN LISTS files)
    if(path STREQUAL "" OR path MATCHES "\\.(png|jpg|ico|woff2?)$" OR NOT EXISTS "${root}/${path}")
      continue()
    endif()
    file(STRINGS "${root}/${path}" lines REGEX "${forbidden}")
    foreach(line IN LISTS lines)
      string(APPEND found "\n  ${path}: ${line}")
    endforeach()
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

if(SELF_TEST)
  set(tree "${WORK_DIR}/self_contained_self_test")
  file(REMOVE_RECURSE "${tree}")
  file(WRITE "${tree}/docs/ok.md" "Every rule is in docs/RULES.md.\n")
  file(WRITE "${tree}/docs/bad.md" "See ${sibling}/RULES.md.\n")
  file(WRITE "${tree}/engine/bad.hpp" "// from ${absolute}shared/rules\n")
  file(WRITE "${tree}/build-x/ignored.txt" "${sibling}\n")
  find_outside_references("${tree}" found)
  foreach(expected "docs/bad.md" "engine/bad.hpp")
    if(NOT found MATCHES "${expected}")
      message(FATAL_ERROR "the scan missed the reference planted in ${expected}:${found}")
    endif()
  endforeach()
  if(found MATCHES "ok.md|build-x")
    message(FATAL_ERROR "the scan reported a file it should not have:${found}")
  endif()
  message(STATUS "the scan finds planted references")
  return()
endif()

find_outside_references("${ROOT}" found)
if(found)
  message(FATAL_ERROR "files that refer to something outside the repository:${found}")
endif()
message(STATUS "no file refers to anything outside the repository")
