package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.error.Errno;
import java.nio.file.Path;
import java.util.EnumSet;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.XrcdHandle;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link QueuePair#modify} against the kernel's QP state table when the graph's idea of the state may be
 * stale: an XRC receive QP that another process, sharing the domain, moves (ibv_open_qp(3)).
 */
class QueuePairModifyTest {

    @TempDir
    Path dir;

    private final VerbsProvider provider = SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0"));
    private final Verbs verbs = Verbs.using(provider);
    private final DeviceContext ctx = verbs.openDevice("mlx5_0");

    @AfterEach
    void close() {
        verbs.close();
    }

    @Test
    void anXrcReceiveQpMovedByAnotherProcessIsJudgedFromTheDevicesStateNotTheGraphs() {
        Path file = dir.resolve("domain");
        XrcDomain xrcd = ctx.openXrcDomain(XrcDomainSpec.shared(file));
        QueuePair target = xrcd.createReceiveQueuePair("target");
        ContextHandle otherProcess = provider.deviceVerbs().openDevice(ctx.device());
        int fd = provider.domainVerbs().openFile(file, false);
        XrcdHandle otherXrcd = provider.domainVerbs().openXrcd(otherProcess, fd, 0);
        QpHandle opened = provider.queuePairVerbs().openQp(otherProcess, otherXrcd, target.qpNum(), QpType.XRC_RECV);
        provider.queuePairVerbs().modifyQp(opened, QpModification.init(1, 0, EnumSet.of(AccessFlag.LOCAL_WRITE)));
        assertThat(target.state()).as("the graph's last sight of the QP").isEqualTo(QpState.RESET);

        // RESET->RTR is no transition, INIT->RTR is: the graph asks the device before refusing.
        AddressVector path = AddressVector.roce(1, ctx.queryGid(1, 0), 0);
        target.modify(QpModification.readyToReceive(QpType.XRC_RECV, path, 0x123, 0, Mtu.MTU_1024));

        assertThat(target.state()).isEqualTo(QpState.RTR);
        assertThat(target.query().state()).isEqualTo(QpState.RTR);
        provider.queuePairVerbs().destroyQp(opened);
        provider.domainVerbs().closeXrcd(otherXrcd);
        provider.domainVerbs().closeFile(fd);
        provider.deviceVerbs().closeDevice(otherProcess);
    }

    @Test
    void aMaskTheTableRejectsIsEinvalNamingTheQpTheTransitionAndTheAttribute() {
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(8));
        QueuePair qp = pd.createQueuePair(QueuePairSpec.ud(cq, cq, new io.rdmaverbs.verbs.attr.QpCapabilities(
                4, 4, 1, 1, 0)), "ud");

        assertThatThrownBy(() -> qp.modify(QpModification.init(1, 0, EnumSet.noneOf(AccessFlag.class))))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("ibv_modify_qp");
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.resource()).contains("'ud'");
                    assertThat(e.reason()).startsWith("RESET->INIT (UD QP) requires [QKEY]")
                            .contains("does not take [ACCESS_FLAGS]", "refused before calling ibv_modify_qp");
                });
        assertThat(qp.query().state()).isEqualTo(QpState.RESET);
    }
}
