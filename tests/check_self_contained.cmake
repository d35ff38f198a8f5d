# The repository speaks for itself: no tracked file may point at a file
# outside it (a sibling folder reached with "../", a "shared/..." path, or an
# absolute path of the machine it was written on). Such a reference works on
# one checkout and nowhere else; docs/RULES.md and docs/TRANSCRIPT.md say in
# the project's own words what those files said. And every path a file names
# from the repository's root (engine/..., server/..., docs/..., with a file
# extension) must exist: a file moved or removed leaves no stale mention.
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
set(shared "shar")
string(APPEND shared "ed/")
set(forbidden "(${sibling_pattern}|${absolute}|(^|[^A-Za-z0-9_.-])${shared}[A-Za-z])")
# A path from the repository's root: a top-level folder, then a file with an
# extension. Checked for existence.
set(top_folders "engine|protocol|server|clients|tests|docs|scripts|bench|tools|docker|deploy|fuzz|cmake")
set(extensions "cpp|hpp|c|h|md|js|mjs|py|sh|cmake|txt|yaml|yml|json|css|html|sql|cfg|service|conf|in")
set(local_path "(${top_folders})/[A-Za-z0-9_./-]*[A-Za-z0-9_]\\.(${extensions})")
# The scripts that plant files in a scratch tree to test a check name paths
# that exist only there; and a name with the placeholder NNNN (a migration
# number) is a pattern, not a file.
set(planting_files tests/check_layers.py tests/check_self_contained.cmake)
set(placeholder "/NNNN[^/]*$")

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
    if(path IN_LIST planting_files)
      continue()
    endif()
    file(STRINGS "${root}/${path}" lines REGEX "${local_path}")
    foreach(line IN LISTS lines)
      # Brackets and semicolons would split or hold together CMake's lists.
      string(REGEX REPLACE "[][;]" " " line "${line}")
      string(REGEX MATCHALL "(^|[^A-Za-z0-9_.-])${local_path}([^A-Za-z0-9_/]|$)" mentions "${line}")
      foreach(mention IN LISTS mentions)
        string(REGEX REPLACE "^[^A-Za-z]" "" mention "${mention}")
        string(REGEX REPLACE "[^A-Za-z0-9_]$" "" mention "${mention}")
        # A listed file counts even while a test rewrites it (the browser
        # tests write docs/screenshots while the other tests run).
        if(NOT mention IN_LIST files AND NOT EXISTS "${root}/${mention}" AND NOT mention MATCHES "${placeholder}")
          string(APPEND found "\n  ${path}: names ${mention}, which the repository does not have")
        endif()
      endforeach()
    endforeach()
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

if(SELF_TEST)
  set(tree "${WORK_DIR}/self_contained_self_test")
  file(REMOVE_RECURSE "${tree}")
  # File names in variables, so that this file names none of them itself.
  set(ok ok)
  set(bad bad)
  set(gone gone)
  file(WRITE "${tree}/docs/RULES.md" "Every rule is in docs/RULES.md (see engine/${ok}.hpp).\n")
  file(WRITE "${tree}/engine/${ok}.hpp" "// the rules: docs/RULES.md\n")
  file(WRITE "${tree}/docs/${bad}.md" "See ${sibling}/RULES.md.\n")
  file(WRITE "${tree}/engine/${bad}.hpp" "// from ${absolute}x/rules\n")
  file(WRITE "${tree}/server/${bad}.cpp" "// as ${shared}STYLE.md says\n")
  file(WRITE "${tree}/tests/${bad}.md" "Read server/${gone}.cpp, then engine/${ok}.hpp.\n")
  file(WRITE "${tree}/build-x/ignored.txt" "${sibling}\n")
  find_outside_references("${tree}" found)
  foreach(expected "docs/${bad}.md" "engine/${bad}.hpp" "server/${bad}.cpp" "tests/${bad}.md: names server/${gone}.cpp")
    if(NOT found MATCHES "${expected}")
      message(FATAL_ERROR "the scan missed the reference planted in ${expected}:${found}")
    endif()
  endforeach()
  if(found MATCHES "RULES.md:|${ok}.hpp|build-x")
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
