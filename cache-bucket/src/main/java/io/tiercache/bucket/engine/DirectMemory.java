/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;

/**
 * Frees a direct or mapped buffer now rather than when the GC finds it unreachable, through
 * {@code sun.misc.Unsafe#invokeCleaner} (module {@code jdk.unsupported}, which opens
 * {@code sun.misc} to reflection, so no {@code --add-opens} is needed).
 *
 * <p>If the method cannot be found (a JDK without {@code jdk.unsupported}), {@link #free} does
 * nothing and the memory returns when the GC collects the buffer; {@link #canFree()} says which.
 *
 * <p>Public so that engines of other modules ({@code cache-pmem}) unmap their pools the same way.
 *
 * <p>After {@code free}, touching the buffer or any slice of it is a use-after-free that may
 * crash the JVM; callers guarantee no reader still holds it.
 */
public final class DirectMemory {
  private static final MethodHandle INVOKE_CLEANER = findInvokeCleaner();

  private DirectMemory() {}

  /** Whether {@link #free} releases memory at once. */
  public static boolean canFree() {
    return INVOKE_CLEANER != null;
  }

  /** Releases {@code buffer}'s memory (direct) or mapping (mapped); it must not be a slice. */
  public static void free(ByteBuffer buffer) {
    if (INVOKE_CLEANER == null || buffer == null || !buffer.isDirect()) {
      return;
    }
    try {
      INVOKE_CLEANER.invokeExact(buffer);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("invokeCleaner failed", t);
    }
  }

  private static MethodHandle findInvokeCleaner() {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
      Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
      theUnsafe.setAccessible(true);
      MethodHandle handle = MethodHandles.lookup().findVirtual(unsafeClass, "invokeCleaner",
          MethodType.methodType(void.class, ByteBuffer.class));
      return handle.bindTo(theUnsafe.get(null));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
