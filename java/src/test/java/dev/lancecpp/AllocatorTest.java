// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The leak check every test class shares: a fresh allocator per test, and after it (and after
 * the subclass's own clean-up) zero outstanding bytes, then close (which throws on a leak too).
 */
public abstract class AllocatorTest {
  protected BufferAllocator allocator;

  @BeforeEach
  void openAllocator() {
    allocator = new RootAllocator(Long.MAX_VALUE);
  }

  @AfterEach
  void checkAndCloseAllocator() {
    assertEquals(0, allocator.getAllocatedMemory(), "outstanding bytes");
    allocator.close();
  }
}
