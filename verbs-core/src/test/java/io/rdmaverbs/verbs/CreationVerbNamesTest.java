package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every creation verb comes as {@code (spec)}, named by the graph, and {@code (spec, name)}. */
class CreationVerbNamesTest {

    private static final Set<AccessFlag> LOCAL = EnumSet.of(AccessFlag.LOCAL_WRITE);
    private static final QpCapabilities CAPS = QpCapabilities.of(16, 16);
    private static final Gid GROUP = Gid.parse("ff0e:0000:0000:0000:0000:0000:0000:0101");

    private final Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0")));
    private final Arena arena = Arena.ofShared();
    /** Names the XRC domain both contexts open, so one can register with the other's receive QP. */
    private final Path xrcdFile;

    CreationVerbNamesTest(@TempDir Path dir) throws IOException {
        xrcdFile = Files.createFile(dir.resolve("xrcd.key"));
    }

    @AfterEach
    void closeGraph() {
        verbs.close();
        arena.close();
    }

    @Test
    void theNamedOverloadOfEveryCreationVerbNamesTheResource() {
        DeviceContext ctx = verbs.openDevice("mlx5_0", "ctx");
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        XrcDomain xrcd = ctx.openXrcDomain(XrcDomainSpec.shared(xrcdFile), "xrcd");
        CompletionChannel channel = ctx.createCompletionChannel("channel");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16).withChannel(channel), "cq");
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(16), "srq");
        SharedReceiveQueue xsrq = pd.createSharedReceiveQueue(SharedReceiveQueueSpec.xrc(xrcd, cq, 16), "xsrq");
        QueuePair ud = pd.createQueuePair(QueuePairSpec.ud(cq, cq, CAPS), "ud");
        QueuePair target = xrcd.createReceiveQueuePair("target");
        XrcReceiveQpRegistration registration = verbs.openDevice(ctx.device(), "peer")
                .openXrcDomain(XrcDomainSpec.existing(xrcdFile), "peer-xrcd").openReceiveQueuePair(target.qpNum(), "reg");
        MemoryRegion registered = pd.registerMemory(arena.allocate(64), LOCAL, "registered");
        MemoryRegion allocated = pd.allocateMemory(64, LOCAL, "allocated");
        AddressHandle ah = pd.createAddressHandle(AddressVector.roce(1, ctx.queryGid(1, 0), 0), "ah");
        MulticastAttachment group = ud.attachMulticast(GROUP, 0, "group");

        assertThat(List.of(ctx, pd, xrcd, channel, cq, srq, xsrq, ud, target, registration, registered,
                allocated, ah, group)).extracting(VerbsResource::name).containsExactly("ctx", "pd", "xrcd", "channel",
                "cq", "srq", "xsrq", "ud", "target", "reg", "registered", "allocated", "ah", "group");
    }

    @Test
    void theUnnamedOverloadOfEveryCreationVerbLetsTheGraphNameTheResource() {
        DeviceContext ctx = verbs.openDevice("mlx5_0");
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        XrcDomain xrcd = ctx.openXrcDomain(XrcDomainSpec.shared(xrcdFile));
        CompletionChannel channel = ctx.createCompletionChannel();
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16));
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(16));
        QueuePair ud = pd.createQueuePair(QueuePairSpec.ud(cq, cq, CAPS));
        QueuePair target = xrcd.createReceiveQueuePair();
        XrcReceiveQpRegistration registration = verbs.openDevice(ctx.device())
                .openXrcDomain(XrcDomainSpec.existing(xrcdFile)).openReceiveQueuePair(target.qpNum());
        MemoryRegion registered = pd.registerMemory(arena.allocate(64), LOCAL);
        MemoryRegion allocated = pd.allocateMemory(64, LOCAL);
        AddressHandle ah = pd.createAddressHandle(AddressVector.roce(1, ctx.queryGid(1, 0), 0));
        MulticastAttachment group = ud.attachMulticast(GROUP, 0);

        assertThat(ctx.name()).as("a context is named after its device").isEqualTo("mlx5_0");
        assertThat(registration.name()).as("a registration is named after its QP number")
                .isEqualTo("xrc-rcv-qp-" + target.qpNum());
        assertThat(group.name()).as("an attachment is named after its group").isEqualTo(GROUP.toString());
        for (VerbsResource r : List.of(pd, xrcd, channel, cq, srq, ud, target, registered, allocated, ah)) {
            assertThat(r.name()).isEqualTo(r.kind().shortName() + "#" + r.id());
        }
    }

    @Test
    void aNullNameIsRejectedRatherThanTakenForNoName() {
        DeviceContext ctx = verbs.openDevice("mlx5_0");
        assertThatThrownBy(() -> ctx.allocateProtectionDomain(nullName())).isInstanceOf(NullPointerException.class)
                .hasMessage("name");
        assertThatThrownBy(() -> ctx.createCompletionQueue(CompletionQueueSpec.of(4), nullName()))
                .isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> verbs.openDevice("mlx5_0", nullName())).isInstanceOf(NullPointerException.class)
                .hasMessage("name");
        assertThat(verbs.resources()).containsExactly(ctx);
    }

    /** A null the compiler cannot see, as a caller without null checking could pass. */
    @SuppressWarnings("DataFlowIssue")
    private static String nullName() {
        return (String) (Object) null;
    }
}
