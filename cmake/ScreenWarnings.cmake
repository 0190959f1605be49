# Warning flags shared by every target of the project: screen_warnings(<target>).
set(SCREEN_CXX_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
    -Wunused -Woverloaded-virtual -Wnull-dereference -Wdouble-promotion -Wformat=2)
function(screen_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${SCREEN_CXX_WARNINGS}>)
  if(SCREEN_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
  if(SCREEN_HAVE_CUDA)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo -Xcompiler=-Wall,-Wextra>)
    if(SCREEN_WERROR)
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
    endif()
  endif()
  if(SCREEN_NATIVE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
  endif()
endfunction()

# Kernels whose launch bounds were tuned for sm_90's register file must not spill there: ptxas reports
# a spill as an error (a spill in a hot loop costs more than the occupancy the bound bought). Other
# architectures only get the warning, since their register budgets were never tuned.
function(screen_no_spills target)
  if(NOT SCREEN_HAVE_CUDA)
    return()
  endif()
  if("${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "90")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills,-Werror>)
  else()
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills>)
  endif()
endfunction()
