package io.rdmaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What happens after the native part of a creation or release succeeded and something after it throws:
 * a listener, or the memory an allocated region owned. The graph follows the native object, never the
 * failure.
 */
@Timeout(20)
class ListenerAndCleanupFailureTest {

    /** {@code nanosleep(2)} holds its {@code timespec} argument for the whole sleep, as any downcall does. */
    private static final MethodHandle NANOSLEEP = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("nanosleep").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    private final SimulatedProvider provider = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
    private final Verbs verbs = Verbs.using(provider);
    private final DeviceContext ctx = verbs.openDevice("rxe0");
    private final ProtectionDomain pd = ctx.allocateProtectionDomain("pd");

    @Test
    void aListenerThrowingFromCreatedLeavesTheRegionRegisteredWithItsMemoryAlive() {
        verbs.addListener(new VerbsListener() {
            @Override
            public void created(VerbsResource resource) {
                throw new IllegalStateException("listener bug");
            }
        });

        MemoryRegion mr = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), "mr");

        assertThat(mr.isOpen()).isTrue();
        mr.segment().set(JAVA_LONG, 0, 42L);
        assertThat(mr.segment().get(JAVA_LONG, 0)).isEqualTo(42L);
        assertThat(verbs.resources()).contains(mr);
        mr.close();
        assertThat(mr.isClosed()).isTrue();
        assertThat(verbs.resources()).containsExactly(ctx, pd);
    }

    @Test
    void aListenerThrowingFromClosedNeitherAbortsTheCascadeNorHidesItFromTheOtherListeners() {
        List<String> heard = new ArrayList<>();
        verbs.addListener(new VerbsListener() {
            @Override
            public void closed(VerbsResource resource) {
                throw new IllegalStateException("listener bug");
            }
        });
        verbs.addListener(new VerbsListener() {
            @Override
            public void closed(VerbsResource resource) {
                heard.add(resource.name());
            }
        });
        pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), "mr");

        verbs.close();

        assertThat(verbs.resources()).isEmpty();
        assertThat(heard).containsExactly("mr", "pd", ctx.name());
        assertThat(provider.resourceCounts("rxe0").objects()).isZero();
    }

    @Test
    void aRegionWhoseMemoryIsStillInUseIsClosedOnceDeregisteredAndItsPdCanGo() throws Exception {
        MemoryRegion mr = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), "mr");
        MemorySegment timespec = mr.segment();
        timespec.set(JAVA_LONG, 0, 2L);
        timespec.set(JAVA_LONG, 8, 0L);
        CountDownLatch calling = new CountDownLatch(1);
        CompletableFuture<Integer> sleeper = CompletableFuture.supplyAsync(() -> {
            try {
                calling.countDown();
                return (int) NANOSLEEP.invokeExact(timespec, MemorySegment.NULL);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        });
        // A started thread can still be descheduled before its downcall on a loaded machine: the 2 s sleep
        // leaves room for that, and the region's arena is held once the call is in.
        assertThat(calling.await(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(300);

        mr.close();

        assertThat(mr.isClosed()).as("deregistered, so closed, though its arena could not close yet").isTrue();
        assertThat(verbs.resources()).containsExactly(ctx, pd);
        pd.close();
        assertThat(pd.isClosed()).isTrue();
        assertThat(sleeper.get(5, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void anAbsurdAllocationSaysSoBeforeTheArenaAnswersOutOfMemory() {
        assertThatThrownBy(() -> pd.allocateMemory(Long.MAX_VALUE, EnumSet.of(AccessFlag.LOCAL_WRITE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("could not allocate " + Long.MAX_VALUE + " bytes")
                .hasMessageContaining("rxe0")
                .hasMessageContaining("max_mr_size allows 18446744073709551615");
        assertThat(verbs.resources()).containsExactly(ctx, pd);
    }
}
