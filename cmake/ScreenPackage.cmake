# What `cmake --install` puts where, and the Debian package of it (`cmake --build build --target
# package`, CPack's DEB generator): the `screen` executable, the example manifests with the data they
# read (share/screen/configs and share/screen/data, so that their relative paths still hold), the
# workflows, and the README and docs. The package's dependencies are the Debian libraries the
# executable links, found by dpkg-shlibdeps.
include(GNUInstallDirs)
install(TARGETS screen RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/configs/demo.yaml ${PROJECT_SOURCE_DIR}/configs/svrna_vs_transcriptome.yaml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/screen/configs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/demo ${PROJECT_SOURCE_DIR}/data/svrna
        DESTINATION ${CMAKE_INSTALL_DATADIR}/screen/data)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/workflows/ DESTINATION ${CMAKE_INSTALL_DATADIR}/screen/workflows)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME screen)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU-accelerated batch RNA-RNA interaction screening")
set(CPACK_PACKAGE_CONTACT "screen developers <screen@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
