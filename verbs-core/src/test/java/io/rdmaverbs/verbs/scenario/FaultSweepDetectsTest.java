package io.rdmaverbs.verbs.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;

import org.junit.jupiter.api.Test;

/** The fault sweep fails on what it is there to find, so that its passing means something. */
class FaultSweepDetectsTest {

    private static final DeviceProfile RXE = DeviceProfile.rxe("rxe0");

    @Test
    void aReleaseChainThatGivesUpOnARefusedReleaseFailsTheSweepAsALeak() {
        Scenario leaky = new Scenario("releases below the graph without a retry", run -> {
            VerbsProvider provider = run.provider();
            ContextHandle ctx = provider.deviceVerbs().openDevice(run.device());
            try {
                PdHandle pd = provider.domainVerbs().allocPd(ctx);
                provider.domainVerbs().deallocPd(pd);   // refused: the PD stays, the context closes over it
            } finally {
                provider.deviceVerbs().closeDevice(ctx);
            }
        });

        assertThatThrownBy(() -> new FaultSweep(RXE, leaky).sweep()).isInstanceOf(AssertionError.class)
                .hasMessageContaining("ibv_dealloc_pd").hasMessageContaining("pds=1");
    }

    @Test
    void aRunThatAFaultLeavesWaitingIsCutShortAndStillFailsTheSweepAsALeak() {
        Scenario waitsHoldingAPd = new Scenario("waits for ever once a release is refused", run -> {
            VerbsProvider provider = run.provider();
            ContextHandle ctx = provider.deviceVerbs().openDevice(run.device());
            try {
                PdHandle pd = provider.domainVerbs().allocPd(ctx);
                try {
                    provider.domainVerbs().deallocPd(pd);
                } catch (VerbsException refused) {
                    Thread.sleep(Duration.ofMinutes(5));   // as for an event a fault prevented
                    throw refused;
                }
            } finally {
                provider.deviceVerbs().closeDevice(ctx);
            }
        });

        assertThatThrownBy(() -> assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> new FaultSweep(RXE, waitsHoldingAPd).sweep())).isInstanceOf(AssertionError.class)
                .hasMessageContaining("ibv_dealloc_pd").hasMessageContaining("pds=1");
    }

    @Test
    void aThreadTheRunLeavesRunningFailsTheSweep() {
        CountDownLatch stop = new CountDownLatch(1);
        Scenario leavesAThread = new Scenario("starts a thread and forgets it", run -> {
            run.open().allocateProtectionDomain();
            Thread.ofPlatform().name("forgotten").start(() -> {
                try {
                    stop.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        });
        try {
            assertThatThrownBy(() -> new FaultSweep(RXE, leavesAThread).sweep()).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("threads the run started and left running")
                    .hasMessageContaining("forgotten");
        } finally {
            stop.countDown();
        }
    }

    @Test
    void aCleanScenarioIsSweptAtEveryProviderCall() throws Exception {
        Scenario clean = new Scenario("opens a PD through the graph", run -> run.open().allocateProtectionDomain());

        FaultSweep.Coverage coverage = new FaultSweep(RXE, clean).sweep();

        // At least ibv_get_device_list, ibv_open_device, ibv_alloc_pd, and the cascade's ibv_dealloc_pd and
        // ibv_close_device: a deterministic scenario has a fault injected in every run but the clean one.
        assertThat(coverage.everyPosition()).isTrue();
        assertThat(coverage.injectionPoints()).isEqualTo(coverage.runs() - 1).isGreaterThanOrEqualTo(5);
    }
}
