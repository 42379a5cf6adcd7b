package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import java.util.List;
import java.util.regex.Pattern;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import static org.assertj.core.api.Assertions.assertThat;

class FailureAnalyzersTests {

    private static final String MAIN = "rdma.verbs.devices.main";

    @Test
    void everyAnalyzerIsRegisteredForSpringBootToFind() {
        ArgumentResolver arguments = ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                .and(Environment.class, new StandardEnvironment());
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, arguments);
        assertThat(analyzers).hasAtLeastOneElementOfType(UnknownDeviceFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(DanglingReferenceFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(CyclicReferenceFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(XrcUnsupportedFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(ProviderUnavailableFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(DeviceLimitsFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(DuplicateResourceKeyFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(InvalidDeclarationFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(InvalidConnectionSettingFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(ListenerBindFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(InvalidVerbsSettingFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(RequiredPeerUnavailableFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(VerbFailureAnalyzer.class);
    }

    @Test
    void unknownDeviceListsTheDevicesThatExistAndTheKeyToChange() {
        FailureAnalysis analysis = analyze(new UnknownDeviceFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues("rdma.verbs.simulated.devices.rxe0.profile=rxe",
                        "rdma.verbs.simulated.devices.mlx5_0.profile=mlx5",
                        MAIN + ".name=mlx5_7", MAIN + ".protection-domains=pd0"));
        assertThat(analysis.getDescription()).contains(MAIN + ".name", "'mlx5_7'", "simulated provider",
                "Devices present: ", "rxe0 (GUID ", "mlx5_0 (GUID ");
        assertThat(analysis.getAction()).contains("Change " + MAIN + ".name to one of: ", "rxe0", "mlx5_0");
    }

    @Test
    void unknownDeviceSelectedByGuidNamesTheGuidProperty() {
        FailureAnalysis analysis = analyze(new UnknownDeviceFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(MAIN + ".guid=0000:0000:0000:0001"));
        assertThat(analysis.getDescription()).contains(MAIN + ".guid", "0000:0000:0000:0001", "rxe0");
        assertThat(analysis.getAction()).matches(Pattern.quote("Change " + MAIN + ".guid to one of: ")
                + "[0-9a-f]{16} \\(rxe0\\)\\.");
    }

    @Test
    void danglingReferenceNamesTheKeyTheMissingNameAndTheNamesThatExist() {
        FailureAnalysis analysis = analyze(new DanglingReferenceFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues(MAIN + ".queue-pairs.qp0.send-cq=cq7"));
        assertThat(analysis.getDescription()).contains(MAIN + ".queue-pairs.qp0.send-cq", "'cq7'", "[cq0, cq1]");
        assertThat(analysis.getAction()).contains("Change " + MAIN + ".queue-pairs.qp0.send-cq to one of cq0, cq1",
                "declare a completion queue named 'cq7' under " + MAIN + ".completion-queues");
    }

    @Test
    void referenceToAResourceOfAnotherKindSaysWhatItIs() {
        FailureAnalysis analysis = analyze(new DanglingReferenceFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues(MAIN + ".queue-pairs.qp0.recv-cq=pd0"));
        assertThat(analysis.getDescription()).contains(MAIN + ".queue-pairs.qp0.recv-cq", "'pd0'",
                "which is a protection domain, not a completion queue");
        assertThat(analysis.getAction()).isEqualTo("Change " + MAIN + ".queue-pairs.qp0.recv-cq to one of cq0, cq1.");
    }

    @Test
    void referenceToAResourceOfAnotherDeviceSaysWhichDevice() {
        FailureAnalysis analysis = analyze(new DanglingReferenceFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues("rdma.verbs.devices.other.name=rxe0",
                        "rdma.verbs.devices.other.memory-regions.far.protection-domain=pd0",
                        "rdma.verbs.devices.other.memory-regions.far.size=4KB"));
        assertThat(analysis.getDescription()).contains("rdma.verbs.devices.other.memory-regions.far.protection-domain",
                "declared on device 'main'", "no protection domain is declared there");
        assertThat(analysis.getAction()).contains("No protection domain is declared on device 'other'",
                "rdma.verbs.devices.other.protection-domains");
    }

    @Test
    void cyclicReferenceShowsTheCycleAndThePropertiesToChange() {
        FailureAnalysis analysis = analyze(new CyclicReferenceFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(MAIN + ".name=rxe0", MAIN + ".protection-domains=pd0",
                        MAIN + ".xrc-domains.x.create=true",
                        MAIN + ".completion-queues.cq0.entries=16",
                        MAIN + ".shared-receive-queues.s.protection-domain=pd0",
                        MAIN + ".shared-receive-queues.s.xrc-domain=x",
                        MAIN + ".shared-receive-queues.s.completion-queue=q",
                        MAIN + ".queue-pairs.q.protection-domain=pd0", MAIN + ".queue-pairs.q.send-cq=cq0",
                        MAIN + ".queue-pairs.q.recv-cq=cq0", MAIN + ".queue-pairs.q.srq=s"));
        assertThat(analysis.getDescription()).contains("s -> q -> s",
                MAIN + ".shared-receive-queues.s.completion-queue", MAIN + ".queue-pairs.q.srq");
        assertThat(analysis.getAction())
                .contains("Change one of " + MAIN + ".shared-receive-queues.s.completion-queue");
    }

    @Test
    void xrcOnADeviceWithoutXrcSuggestsADeviceWithXrcOrRcWithAnSrq() {
        FailureAnalysis analysis = analyze(new XrcUnsupportedFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues("rdma.verbs.simulated.devices.rxe0.profile=rxe",
                        "rdma.verbs.simulated.devices.mlx5_0.profile=mlx5",
                        MAIN + ".name=rxe0", MAIN + ".xrc-domains.shared.file=/tmp/rdma-verbs-xrcd"));
        assertThat(analysis.getDescription()).contains("rxe0", MAIN, "does not support XRC",
                MAIN + ".xrc-domains.shared");
        assertThat(analysis.getAction()).contains("Select a device with XRC in " + MAIN + ".name (mlx5_0)",
                "RC queue pairs sharing a basic shared receive queue");
    }

    @Test
    void missingNativeLibrarySaysWhatToInstallOrToSimulate() {
        FailureAnalysis analysis = analyze(new ProviderUnavailableFailureAnalyzer(), Contexts.all()
                .withPropertyValues("rdma.verbs.native.library-path=/nonexistent/libibverbs.so.1"));
        assertThat(analysis.getDescription()).contains("rdma.verbs.provider=native", "/nonexistent/libibverbs.so.1");
        assertThat(analysis.getAction()).contains("libibverbs1 ibverbs-providers", "rdma.verbs.native.library-path",
                "rdma.verbs.provider=simulated");
    }

    @Test
    void disabledNativeAccessSaysWhichJvmFlagToAdd() {
        ProviderUnavailableException cause = new ProviderUnavailableException(Reason.NATIVE_ACCESS_DISABLED,
                "native access is disabled for this code");
        FailureAnalysis analysis = new ProviderUnavailableFailureAnalyzer().analyze(new IllegalStateException(cause));
        assertThat(analysis.getAction()).contains("--enable-native-access=ALL-UNNAMED",
                "rdma.verbs.provider=simulated");
    }

    @Test
    void deviceLimitsListEveryPropertyOverItsLimit() {
        FailureAnalysis analysis = analyze(new DeviceLimitsFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(MAIN + ".name=rxe0", MAIN + ".completion-queues.big.entries=100000",
                        MAIN + ".completion-queues.big.comp-vector=5"));
        assertThat(analysis.getDescription()).contains(
                MAIN + ".completion-queues.big.entries is 100000, but the device allows at most 32767 (max_cqe)",
                MAIN + ".completion-queues.big.comp-vector is 5, but the device allows at most 1 "
                        + "(num_comp_vectors - 1)");
        assertThat(analysis.getAction()).contains(MAIN + ".completion-queues.big.entries to at most 32767",
                MAIN + ".completion-queues.big.comp-vector to at most 1");
    }

    @Test
    void duplicateKeysNameEveryPlaceTheKeyIsDeclared() {
        FailureAnalysis analysis = analyze(new DuplicateResourceKeyFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(MAIN + ".name=rxe0", MAIN + ".protection-domains=x",
                        MAIN + ".completion-queues.x.entries=16"));
        assertThat(analysis.getDescription()).contains("'x'", MAIN + ".protection-domains[0]",
                MAIN + ".completion-queues.x", "unique");
        assertThat(analysis.getAction()).contains("Rename all but one of");
    }

    @Test
    void keyClashingWithAnExistingBeanSaysSo() {
        FailureAnalysis analysis = analyze(new DuplicateResourceKeyFailureAnalyzer(), Contexts.simulated()
                .withBean("pd0", String.class, () -> "taken")
                .withPropertyValues(MAIN + ".name=rxe0", MAIN + ".protection-domains=pd0"));
        assertThat(analysis.getDescription()).contains("a bean of that name already exists");
        assertThat(analysis.getAction()).contains("Rename the key at " + MAIN + ".protection-domains[0]");
    }

    @Test
    void incompleteDeclarationSaysWhatToSet() {
        FailureAnalysis analysis = analyze(new InvalidDeclarationFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues(MAIN + ".queue-pairs.qp1.protection-domain=pd0"));
        assertThat(analysis.getDescription()).contains(MAIN + ".queue-pairs.qp1.send-cq is not set");
        assertThat(analysis.getAction()).contains("Set " + MAIN + ".queue-pairs.qp1.send-cq to one of the completion "
                + "queues of device 'main': [cq0, cq1]");
    }

    @Test
    void aVerbFailingAtADeclaredResourceNamesItsPropertyTheVerbAndTheErrno() {
        FailureAnalysis analysis = analyze(new VerbFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues("rdma.verbs.simulated.devices.mlx5_0.profile=mlx5", MAIN + ".name=mlx5_0",
                        MAIN + ".xrc-domains.shared.file=/tmp", MAIN + ".xrc-domains.shared.create=false"));
        assertThat(analysis.getDescription()).startsWith("The RDMA XRC domain 'shared' declared at " + MAIN
                + ".xrc-domains.shared could not be created: ibv_open_xrcd on ctx 'main'")
                .contains("failed with EAGAIN (11)");
        assertThat(analysis.getAction()).isEqualTo("Check the values declared at " + MAIN + ".xrc-domains.shared "
                + "against what ibv_open_xrcd(3) says of EAGAIN and what the device reports (ibv_devinfo -v).");
    }

    @Test
    void aVerbFailingInAnApplicationBeanNamesTheBean() {
        FailureAnalysis analysis = analyze(new VerbFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(MAIN + ".name=rxe0")
                .withBean("extraCq", CompletionQueue.class,
                        () -> { throw new VerbsException("ibv_create_cq", "ctx 'main'",
                                Errno.ENOMEM, "no room"); }));
        assertThat(analysis.getDescription()).isEqualTo("The bean 'extraCq' could not be created: ibv_create_cq on "
                + "ctx 'main' failed with ENOMEM (12): no room.");
        assertThat(analysis.getAction()).startsWith("The device or the kernel has no room for it: lower the values "
                + "the application passes to ibv_create_cq (entries, max-wr, size), raise RLIMIT_MEMLOCK");
    }

    @Test
    void aBlankGuidIsADeclarationErrorNamingTheProperty() {
        FailureAnalysis analysis = analyze(new InvalidDeclarationFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(MAIN + ".name=rxe0", MAIN + ".guid="));
        assertThat(analysis.getDescription()).contains(MAIN + ".guid is blank");
        assertThat(analysis.getAction()).contains("Remove " + MAIN + ".guid");
    }

    @Test
    void anExclusiveXrcDomainThatIsNotCreatedIsADeclarationErrorNamingTheProperty() {
        FailureAnalysis analysis = analyze(new InvalidDeclarationFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(MAIN + ".name=rxe0", MAIN + ".xrc-domains.x0.exclusive=true",
                        MAIN + ".xrc-domains.x0.create=false"));
        assertThat(analysis.getDescription()).contains(MAIN + ".xrc-domains.x0.exclusive")
                .contains("without create (O_CREAT)");
        assertThat(analysis.getAction()).contains("Set " + MAIN + ".xrc-domains.x0.create to true");
    }

    @ParameterizedTest
    @ValueSource(strings = { "-1KB", "0" })
    void aMemoryRegionWithoutPositiveSizeIsADeclarationErrorNamingTheSize(String size) {
        FailureAnalysis analysis = analyze(new InvalidDeclarationFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(Contexts.FULL).withPropertyValues(MAIN + ".memory-regions.buf.size=" + size));
        assertThat(analysis.getDescription()).isEqualTo("Invalid RDMA resource declaration: " + MAIN
                + ".memory-regions.buf.size is " + (size.equals("0") ? "0" : "-1024")
                + " bytes, but a memory region registers at least one byte.");
        assertThat(analysis.getAction()).isEqualTo("Set " + MAIN + ".memory-regions.buf.size to the number of bytes "
                + "to allocate and register, e.g. 64KB.");
    }

    @Test
    void remoteWriteWithoutLocalWriteIsADeclarationErrorNamingTheAccess() {
        FailureAnalysis analysis = analyze(new InvalidDeclarationFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues(MAIN + ".memory-regions.buf.access=remote-write"));
        assertThat(analysis.getDescription()).contains(MAIN + ".memory-regions.buf.access", "remote-write",
                "local-write", "ibv_reg_mr(3)");
        assertThat(analysis.getAction()).isEqualTo("Add local-write to " + MAIN + ".memory-regions.buf.access "
                + "(access: [local-write, remote-write]).");
    }

    @Test
    void aNegativeTeardownTimeoutIsRefusedNamingThePropertyAndWhatZeroMeans() {
        FailureAnalysis analysis = analyze(new InvalidVerbsSettingFailureAnalyzer(), Contexts.simulated()
                .withPropertyValues("rdma.verbs.teardown.timeout=-3s"));
        assertThat(analysis.getDescription()).isEqualTo("Invalid RDMA verbs setting rdma.verbs.teardown.timeout: it is "
                + "-3s, and a wait cannot be negative.");
        assertThat(analysis.getAction()).contains("or to 0 for a single close attempt without waiting",
                "rdma.verbs.teardown.policy decides");
    }

    @Test
    void aZeroTeardownTimeoutIsAccepted() {
        Contexts.simulated().withPropertyValues("rdma.verbs.teardown.timeout=0").run(context ->
                assertThat(context).hasNotFailed());
    }

    private static <T extends Throwable> FailureAnalysis analyze(AbstractFailureAnalyzer<T> analyzer,
            ApplicationContextRunner runner) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.run(context -> {
            assertThat(context).hasFailed();
            analysis[0] = analyzer.analyze(context.getStartupFailure());
        });
        assertThat(analysis[0]).as("the analysis of the startup failure").isNotNull();
        return analysis[0];
    }
}
