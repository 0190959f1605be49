# Generates version_info.cpp with the project version and the git commit, refreshed at every build
# (a commit does not need a reconfigure to show in `screen --version`).
set(SCREEN_VERSION_CPP ${CMAKE_BINARY_DIR}/generated/version_info.cpp)
add_custom_target(screen_version_info
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${SCREEN_VERSION_CPP}
          -DVERSION=${PROJECT_VERSION} -P ${CMAKE_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${SCREEN_VERSION_CPP}
  COMMENT "screen: version info"
  VERBATIM)
