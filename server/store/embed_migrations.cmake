# Turns one store's migrations, DIR/NNNN_name.sql, into a C++ header:
# an array NAME of raw string literals in the order of their numbers, which
# must run 1, 2, 3 ... with no gap (migration NNNN takes the schema from
# version NNNN - 1 to NNNN). A released migration is never edited, only new
# ones added: databases already made ran it as it was. Run at build time:
#   cmake -DDIR=<folder of .sql files> -DNAME=<array name> -DOUTPUT=<header> -P embed_migrations.cmake
#
# A file's leading lines that begin with "--" are its description, for
# whoever reads the file; they are left out of the literal, which starts
# with the newline after them: each migration's text is what the store ran
# before the migrations were files of their own, byte for byte.
foreach(var DIR NAME OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_migrations.cmake: -D${var}=... is missing")
  endif()
endforeach()

file(GLOB files LIST_DIRECTORIES false RELATIVE "${DIR}" "${DIR}/*.sql")
list(SORT files)
set(delimiter "gofish_sql")
set(body "")
set(expected 1)
foreach(name IN LISTS files)
  if(NOT name MATCHES "^([0-9][0-9][0-9][0-9])_[a-z0-9_]+\\.sql$")
    message(FATAL_ERROR "${DIR}/${name}: a migration is named NNNN_words.sql")
  endif()
  math(EXPR number "${CMAKE_MATCH_1}")  # without its leading zeros
  if(NOT number EQUAL expected)
    message(FATAL_ERROR "${DIR}/${name}: migration ${expected} was expected here; the numbers run 1, 2, 3 ... with no gap")
  endif()
  math(EXPR expected "${expected} + 1")
  file(READ "${DIR}/${name}" text)
  # Drop the description: every leading line that begins with "--".
  while(text MATCHES "^--")
    string(FIND "${text}" "\n" end)
    if(end EQUAL -1)
      set(text "")
    else()
      math(EXPR end "${end} + 1")
      string(SUBSTRING "${text}" ${end} -1 text)
    endif()
  endwhile()
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${DIR}/${name}: holds )${delimiter}\", which would end its literal early")
  endif()
  string(APPEND body "    // ${name}\n    R\"${delimiter}(${text})${delimiter}\",\n")
endforeach()
if(expected EQUAL 1)
  message(FATAL_ERROR "${DIR}: no migrations (NNNN_words.sql)")
endif()

get_filename_component(store "${DIR}" NAME)
set(header "// Generated at build time by server/store/embed_migrations.cmake from\n")
string(APPEND header "// server/store/migrations/${store}/*.sql: edit those, not this.\n#pragma once\n\n")
string(APPEND header "namespace gofish::server::migrations {\n\n")
string(APPEND header "// Entry i takes the schema from version i to version i + 1.\n")
string(APPEND header "inline constexpr const char* ${NAME}[] = {\n${body}};\n\n}  // namespace gofish::server::migrations\n")

# Written only when it changes, so an unchanged list rebuilds nothing.
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL header)
  file(WRITE "${OUTPUT}" "${header}")
endif()
