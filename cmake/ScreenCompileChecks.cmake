# screen_compile_check(NAME n SCRIPT s ARGS ... [TIMEOUT t] [SKIP_RETURN_CODE c] [TARGET]): a test that runs a
# python check recompiling sources from the build's compile_commands.json (tests/tools/compile_db.py)
# on every core, with --compile-commands, --source-dir and --jobs passed before ARGS. It keeps ctest -j
# from running other tests on those cores (PROCESSORS). TARGET: also a build target of the same name, for a
# build folder without ctest. Without python3 the test is not registered (a configure message says so).
function(screen_compile_check)
  cmake_parse_arguments(C "TARGET" "NAME;SCRIPT;TIMEOUT;SKIP_RETURN_CODE" "ARGS" ${ARGN})
  find_program(SCREEN_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  find_program(SCREEN_PYTHON3 NAMES python3)
  if(NOT SCREEN_PYTHON3)
    message(STATUS "screen: no python3, so the test ${C_NAME} is not registered")
    return()
  endif()
  include(ProcessorCount)
  ProcessorCount(jobs)
  if(jobs EQUAL 0)
    set(jobs 1)
  endif()
  set(command ${SCREEN_PYTHON3} ${C_SCRIPT} --compile-commands ${CMAKE_BINARY_DIR}/compile_commands.json
              --source-dir ${PROJECT_SOURCE_DIR} --jobs ${jobs} ${C_ARGS})
  add_test(NAME ${C_NAME} COMMAND ${command})
  set_tests_properties(${C_NAME} PROPERTIES PROCESSORS ${jobs} TIMEOUT ${C_TIMEOUT})
  if(C_SKIP_RETURN_CODE)
    set_tests_properties(${C_NAME} PROPERTIES SKIP_RETURN_CODE ${C_SKIP_RETURN_CODE})
  endif()
  if(C_TARGET)
    add_custom_target(${C_NAME} COMMAND ${command} USES_TERMINAL VERBATIM)
  endif()
endfunction()
