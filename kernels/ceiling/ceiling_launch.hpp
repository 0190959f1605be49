#pragma once
// The GPU's measured ceiling for the kernels' inner loop (`screen bench ceiling`, README's performance
// section): every thread of every multiprocessor runs the register-tiled max-plus step of the
// double reduction and the Nussinov panel (an 8 x 8 micro-tile of cells kept in registers, the step's
// operands read from shared memory as those kernels read them), with nothing else in the loop:
// no staging, no barriers. The forms differ in the instructions a step takes; the kernels use
// `fused16` and `fused32`, and the other two are the alternatives measured against it.
#include <cstdint>
#include <string>
#include <vector>

namespace screen::kernels::ceiling {

enum class Form {
  fused16,    // 16-bit cells, two to a word: one fused add-max (__viaddmax_s16x2) per two cells;
              // A's values stored splatted into both halves of a word (two 16-byte loads a step)
  fused32,    // 32-bit cells: one fused add-max (__viaddmax_s32) per cell
  splat16,    // as fused16, but A's values stored packed (one 16-byte load a step) and splatted in the
              // loop by a byte permute per value
  half_max3,  // 16-bit cells as half floats: two half adds (A packed, splatted by the operand's
              // half select, free) and one three-way 16-bit max (__vimax3_s16x2) per two steps of
              // two cells; exact for integers whose sums stay below 1,024 (biased into [1024, 2048))
  lean16,     // fused16 with every slot's address a constant offset (the loop unrolled over the slots):
              // no address arithmetic in the loop, the step's instructions alone
  wide16,     // lean16 with an 8 x 16 micro-tile (B's 16 values in two 16-byte loads): a third fewer
              // shared loads per update; its columns 8 .. 15 repeat 0 .. 7 from their own storage
};

std::string form_name(Form f);
std::vector<Form> all_forms();

// Cells of one thread's micro-tile (wide16: twice as many, checked as two copies of one), and threads of
// a block (lean16 and wide16: exactly this many).
constexpr int kTileCells = 64;
constexpr int kThreads = 128;
// The step's operands cycle through this many slots (shared memory); values are in [0, kMaxValue].
constexpr int kSlots = 8;
constexpr int kMaxValue = 500;

// Operands of the loop: a[slot][thread][row], b[slot][thread][column] and the tile's starting cells
// init[thread][row * 8 + column] (every block uses the same).
struct Inputs {
  std::vector<int> a, b, init;
};
Inputs make_inputs(std::uint32_t seed);

struct Timing {
  double seconds = 0;        // the best of the timed launches
  double updates = 0;        // max-plus cell updates of one launch
  double updates_per_s = 0;
};

// How many blocks of how many threads share a multiprocessor (each block asks for its share of the shared
// memory, so that no more fit). The default is the double reduction's: 2 blocks of 128 threads, two warps
// on each of the four schedulers. Other shapes (fused16 only for blocks over 128 threads) measure how the
// step's rate depends on the warps a scheduler has, which is what a kernel's staging phases leave it.
struct Shape {
  int blocks_per_sm = 2;
  int threads = kThreads;
};

// The shapes of the bench's occupancy table: 1 to 4 warps a scheduler.
std::vector<Shape> occupancy_shapes();

// Times `reps` launches of `steps` steps in every thread of shape.blocks_per_sm * waves
// blocks per multiprocessor, after one launch to warm up.
Timing time_form(Form f, int device, int steps, int reps, int waves = 8, const Shape& shape = Shape{});

// Blocks of `shape` that one multiprocessor holds at once (the CUDA occupancy calculator), to confirm
// that a shape runs as asked.
int resident_blocks(Form f, const Shape& shape, int device);

// The final tiles of every thread of block 0 and of the last of `blocks` blocks of `shape` after `steps`
// steps (a multiple of 4) from `in` (wide16: a cell whose two copies differ comes back as -1) ([block][thread][cell], 2 x shape.threads x kTileCells values), for
// checking the forms against the CPU.
std::vector<int> final_tiles(Form f, const Inputs& in, int device, int steps, int blocks, const Shape& shape = Shape{});

// What every form must give: cell (r, c) of thread t is max(init, max over the slots the steps visit of
// a[s][t][r] + b[s][t][c]).
std::vector<int> expected_tile(const Inputs& in, int steps);

// expected_tile for a block of `threads` threads (thread t has the operands of t % kThreads).
std::vector<int> expected_block(const Inputs& in, int steps, int threads);

// final_tiles' output (`got`, two blocks) against expected_tile's (`want`): empty when every cell of
// both blocks agrees, else the first that does not ("block 4, thread 5, cell 12: 731, the CPU gives
// 730"; `blocks`: the launch's, to name the last block).
std::string tile_mismatch(const std::vector<int>& got, const std::vector<int>& want, int blocks);

}  // namespace screen::kernels::ceiling
