package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import io.rdmaverbs.verbs.attr.OpenFlags;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** XRC domains shared by inode across contexts, and XRC receive QPs living until their last registration. */
class XrcDomainTest {

    @TempDir
    Path dir;

    private final VerbsRig rig = new VerbsRig(DeviceProfile.mlx5("mlx5_0"), DeviceProfile.rxe("rxe0"));
    private final SimulatedProvider provider = rig.provider;
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final SharedReceiveQueueVerbs srqVerbs = provider.sharedReceiveQueueVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final ContextHandle first = rig.open("mlx5_0");
    private final ContextHandle second = rig.open("mlx5_0");

    @AfterEach
    void close() {
        rig.close();
    }

    private QpHandle receiveQp(ContextHandle ctx, XrcdHandle xrcd) {
        return qpVerbs.createQp(ctx, new QpInitSpec(QpType.XRC_RECV, null, xrcd, null, null, null,
                QpCapabilities.of(0, 0), false));
    }

    @Test
    void twoContextsOpeningTheSameFileShareOneDomain() {
        Path file = dir.resolve("domain");
        int fd1 = domainVerbs.openFile(file, true);
        int fd2 = domainVerbs.openFile(file, false);

        XrcdHandle a = domainVerbs.openXrcd(first, fd1, OpenFlags.CREATE);
        XrcdHandle b = domainVerbs.openXrcd(second, fd2, 0);

        assertThat(provider.resourceCounts("mlx5_0").xrcds()).isEqualTo(1);
        QpHandle target = receiveQp(first, a);
        QpHandle opened = qpVerbs.openQp(second, b, target.qpNum(), QpType.XRC_RECV);
        assertThat(opened.qpNum()).isEqualTo(target.qpNum());
        assertThat(opened.type()).isEqualTo(QpType.XRC_RECV);
    }

    @Test
    void openingWithoutOCreatWhenNoDomainExistsFailsWithEagain() {
        int fd = domainVerbs.openFile(dir.resolve("fresh"), true);
        assertVerbFails(() -> domainVerbs.openXrcd(first, fd, 0), "ibv_open_xrcd", Errno.EAGAIN);
    }

    @Test
    void oCreatWithOExclOnAnExistingDomainFailsWithEinval() {
        int fd = domainVerbs.openFile(dir.resolve("excl"), true);
        domainVerbs.openXrcd(first, fd, OpenFlags.CREATE | OpenFlags.EXCLUSIVE);

        assertVerbFails(() -> domainVerbs.openXrcd(second, fd, OpenFlags.CREATE | OpenFlags.EXCLUSIVE),
                "ibv_open_xrcd", Errno.EINVAL);
        domainVerbs.openXrcd(second, fd, OpenFlags.CREATE);
        assertThat(provider.resourceCounts("mlx5_0").xrcds()).isEqualTo(1);
    }

    @Test
    void anUnknownDescriptorFailsWithEbadf() {
        assertVerbFails(() -> domainVerbs.openXrcd(first, 4711, OpenFlags.CREATE), "ibv_open_xrcd", Errno.EBADF);
    }

    @Test
    void aChannelDescriptorNamesNoFile() {
        int channelFd = cqVerbs.createCompChannel(first).fd();
        assertVerbFails(() -> domainVerbs.openXrcd(first, channelFd, OpenFlags.CREATE), "ibv_open_xrcd", Errno.EBADF);
        assertVerbFails(() -> domainVerbs.closeFile(channelFd), "close", Errno.EBADF);
    }

    @Test
    void descriptorMinusOneOpensAPrivateDomainEachTime() {
        XrcdHandle a = domainVerbs.openXrcd(first, -1, OpenFlags.CREATE);
        // The kernel skips every flag check for fd -1 (ib_uverbs_open_xrcd): no O_CREAT still creates one.
        XrcdHandle b = domainVerbs.openXrcd(first, -1, 0);

        assertThat(provider.resourceCounts("mlx5_0").xrcds()).isEqualTo(2);
        QpHandle target = receiveQp(first, a);
        assertVerbFails(() -> qpVerbs.openQp(first, b, target.qpNum(), QpType.XRC_RECV), "ibv_open_qp",
                Errno.EINVAL);
    }

    @Test
    void theDomainOutlivesTheContextThatCreatedItWhileAnotherHoldsIt() {
        Path file = dir.resolve("shared");
        int fd = domainVerbs.openFile(file, true);
        XrcdHandle a = domainVerbs.openXrcd(first, fd, OpenFlags.CREATE);
        XrcdHandle b = domainVerbs.openXrcd(second, fd, 0);

        domainVerbs.closeXrcd(a);
        assertThat(provider.resourceCounts("mlx5_0").xrcds()).isEqualTo(1);
        XrcdHandle again = domainVerbs.openXrcd(first, fd, 0);

        domainVerbs.closeXrcd(b);
        domainVerbs.closeXrcd(again);
        assertThat(provider.resourceCounts("mlx5_0").xrcds()).isZero();
        assertVerbFails(() -> domainVerbs.openXrcd(first, fd, 0), "ibv_open_xrcd", Errno.EAGAIN);
    }

    @Test
    void anXrcReceiveQpLivesUntilTheLastRegistrationIsDropped() {
        int fd = domainVerbs.openFile(dir.resolve("rcv"), true);
        XrcdHandle a = domainVerbs.openXrcd(first, fd, OpenFlags.CREATE);
        XrcdHandle b = domainVerbs.openXrcd(second, fd, 0);
        QpHandle created = receiveQp(first, a);
        QpHandle opened = qpVerbs.openQp(second, b, created.qpNum(), QpType.XRC_RECV);

        qpVerbs.destroyQp(created);
        assertThat(provider.resourceCounts("mlx5_0").qps()).as("still registered by the second context").isEqualTo(1);
        domainVerbs.closeXrcd(a);
        assertThat(qpVerbs.queryQp(opened).qpNum()).isEqualTo(created.qpNum());

        assertVerbFails(() -> domainVerbs.closeXrcd(b), "ibv_close_xrcd", Errno.EBUSY);
        qpVerbs.destroyQp(opened);
        assertThat(provider.resourceCounts("mlx5_0").qps()).isZero();
        assertVerbFails(() -> qpVerbs.openQp(second, b, created.qpNum(), QpType.XRC_RECV), "ibv_open_qp",
                Errno.EINVAL);
        domainVerbs.closeXrcd(b);
    }

    @Test
    void openQpRefusesAQpThatIsNotAnXrcReceiveQpOfTheDomain() {
        XrcdHandle xrcd = domainVerbs.openXrcd(first, -1, OpenFlags.CREATE);
        PdHandle pd = domainVerbs.allocPd(first);
        CqHandle cq = cqVerbs.createCq(first, 8, null, 0);
        QpHandle rc = rig.qp(first, pd, cq, QpType.RC);
        QpHandle target = receiveQp(first, xrcd);

        assertVerbFails(() -> qpVerbs.openQp(first, xrcd, rc.qpNum(), QpType.XRC_RECV), "ibv_open_qp", Errno.EINVAL);
        assertVerbFails(() -> qpVerbs.openQp(first, xrcd, 0xabcdef, QpType.XRC_RECV), "ibv_open_qp", Errno.EINVAL);
        assertVerbFails(() -> qpVerbs.openQp(first, xrcd, target.qpNum(), QpType.RC), "ibv_open_qp", Errno.EINVAL);
    }

    @Test
    void openFileWithoutCreateOfAMissingFileFailsWithEnoentAndCreateMakesIt() {
        Path file = dir.resolve("missing");
        assertVerbFails(() -> domainVerbs.openFile(file, false), "open", Errno.ENOENT);
        domainVerbs.openFile(file, true);
        assertThat(Files.exists(file)).isTrue();
    }

    @Test
    void closingAnUnknownDescriptorFailsWithEbadfAndAClosedOneCannotOpenADomain() {
        assertVerbFails(() -> domainVerbs.closeFile(999_999), "close", Errno.EBADF);
        int fd = domainVerbs.openFile(dir.resolve("closed"), true);
        domainVerbs.closeFile(fd);
        assertVerbFails(() -> domainVerbs.closeFile(fd), "close", Errno.EBADF);
        assertVerbFails(() -> domainVerbs.openXrcd(first, fd, OpenFlags.CREATE), "ibv_open_xrcd", Errno.EBADF);
    }

    @Test
    void softRoceHasNoXrc() {
        ContextHandle rxe = rig.open("rxe0");
        PdHandle pd = domainVerbs.allocPd(rxe);
        CqHandle cq = cqVerbs.createCq(rxe, 8, null, 0);
        int fd = domainVerbs.openFile(dir.resolve("rxe"), true);

        assertVerbFails(() -> domainVerbs.openXrcd(rxe, fd, OpenFlags.CREATE), "ibv_open_xrcd", Errno.EOPNOTSUPP);
        assertVerbFails(() -> domainVerbs.openXrcd(rxe, -1, OpenFlags.CREATE), "ibv_open_xrcd", Errno.EOPNOTSUPP);
        assertVerbFails(() -> qpVerbs.createQp(rxe, new QpInitSpec(QpType.XRC_SEND, pd, null, cq, null, null,
                QpCapabilities.of(1, 0), false)), "ibv_create_qp_ex", Errno.EOPNOTSUPP);
        // rdma-core 44 answers EINVAL for an XRC SRQ on rxe (observed), not EOPNOTSUPP.
        assertVerbFails(() -> srqVerbs.createSrq(rxe, new SrqInitSpec(SrqType.XRC, pd, null, cq, 4, 1, 0)),
                "ibv_create_srq_ex", Errno.EINVAL);
    }
}
