package io.rdmaverbs.verbs.provider.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.GlobalRoute;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcFlag;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.provider.AddressHandleVerbs;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SendWr;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Datagrams through address handles: GRH in the receive buffer, Q_Keys, multicast groups. */
class UdDataPathTest {

    private static final int QKEY = 0x1234;

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"), DeviceProfile.rxe("rxe1"));
    private final SimulatedProvider provider = rig.provider;
    private final DeviceVerbs deviceVerbs = provider.deviceVerbs();
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final AddressHandleVerbs ahVerbs = provider.addressHandleVerbs();

    /** A UD endpoint: context, PD, CQ, QP at RTS, and a registered buffer. */
    private final class Node {
        final ContextHandle ctx;
        final PdHandle pd;
        final CqHandle cq;
        final QpHandle qp;
        final MemorySegment buf = rig.buffer(4096);
        final MrHandle mr;

        Node(VerbsRig on, String device, int qkey) {
            ctx = on.open(device);
            pd = on.provider.domainVerbs().allocPd(ctx);
            cq = on.provider.completionVerbs().createCq(ctx, 64, null, 0);
            qp = on.qp(ctx, pd, cq, QpType.UD);
            mr = on.register(pd, buf);
            on.datagramReady(qp, qkey);
        }
    }

    @AfterEach
    void close() {
        rig.close();
    }

    private void sendDatagram(SimulatedProvider p, Node from, AhHandle ah, int remoteQpn, int qkey, int length,
            long wrId) {
        try (SendWr wr = p.queuePairVerbs().newSendWr(1)) {
            wr.wrId(wrId);
            wr.opcode(SendOpcode.SEND);
            wr.flags(SendFlag.SIGNALED);
            wr.sge(0, from.buf.address(), length, from.mr.lkey());
            wr.sgeCount(1);
            wr.datagram(ah, remoteQpn, qkey);
            p.queuePairVerbs().postSend(from.qp, wr);
        }
    }

    @Test
    void aDatagramArrivesAfterTheFortyGrhBytesAndTheCompletionCountsThem() {
        Node a = new Node(rig, "rxe0", QKEY);
        Node b = new Node(rig, "rxe1", QKEY);
        MemorySegment.copy("datagram!!".getBytes(), 0, a.buf, ValueLayout.JAVA_BYTE, 0, 10);
        Gid gidA = deviceVerbs.queryGid(a.ctx, 1, 0);
        Gid gidB = deviceVerbs.queryGid(b.ctx, 1, 0);
        AhHandle ah = ahVerbs.createAh(a.pd, AddressVector.roce(1, gidB, 0));
        rig.receive(b.qp, 1, b.buf, 256, b.mr);

        sendDatagram(provider, a, ah, b.qp.qpNum(), QKEY, 10, 2);

        assertThat(rig.poll(b.cq)).containsExactly(new VerbsRig.Wc(1, WcStatus.SUCCESS, WcOpcode.RECV, 50, 0,
                b.qp.qpNum(), a.qp.qpNum(), WcFlag.GRH));
        assertThat(VerbsRig.read(b.buf, 40, 10)).isEqualTo("datagram!!");
        byte[] grh = b.buf.asSlice(0, 40).toArray(ValueLayout.JAVA_BYTE);
        assertThat(grh[0]).as("IPv6 version").isEqualTo((byte) 0x60);
        assertThat(((grh[4] & 0xff) << 8) | (grh[5] & 0xff)).as("UDP+BTH+DETH+padded payload+ICRC").isEqualTo(44);
        assertThat(grh[6]).as("next header UDP (RoCE v2)").isEqualTo((byte) 0x11);
        assertThat(grh[7] & 0xff).as("rxe's hop limit").isEqualTo(64);
        assertThat(Gid.of(java.util.Arrays.copyOfRange(grh, 8, 24))).isEqualTo(gidA);
        assertThat(Gid.of(java.util.Arrays.copyOfRange(grh, 24, 40))).isEqualTo(gidB);
        assertThat(rig.poll(a.cq)).containsExactly(new VerbsRig.Wc(2, WcStatus.SUCCESS, WcOpcode.SEND, 10, 0,
                a.qp.qpNum(), 0, 0));
    }

    @Test
    void aWrongQkeyDropsTheDatagramSilently() {
        Node a = new Node(rig, "rxe0", QKEY);
        Node b = new Node(rig, "rxe0", QKEY);
        AhHandle ah = ahVerbs.createAh(a.pd, rig.addressOf(a.ctx));
        rig.receive(b.qp, 1, b.buf, 256, b.mr);

        sendDatagram(provider, a, ah, b.qp.qpNum(), 0x9999, 10, 2);

        assertThat(rig.poll(b.cq)).isEmpty();
        assertThat(rig.poll(a.cq)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.SUCCESS);
    }

    @Test
    void aControlledQkeyUsesTheSendersOwnQkey() {
        Node a = new Node(rig, "rxe0", QKEY);
        Node b = new Node(rig, "rxe0", QKEY);
        AhHandle ah = ahVerbs.createAh(a.pd, rig.addressOf(a.ctx));
        rig.receive(b.qp, 1, b.buf, 256, b.mr);
        sendDatagram(provider, a, ah, b.qp.qpNum(), 0x8000_0000, 10, 2);
        assertThat(rig.poll(b.cq)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.SUCCESS);
    }

    @Test
    void rxeCompletesADatagramLongerThanTheMtuWithoutSendingIt() {
        Node a = new Node(rig, "rxe0", QKEY);
        Node b = new Node(rig, "rxe0", QKEY);
        AhHandle ah = ahVerbs.createAh(a.pd, rig.addressOf(a.ctx));
        rig.receive(b.qp, 1, b.buf, 4096, b.mr);

        sendDatagram(provider, a, ah, b.qp.qpNum(), QKEY, 2000, 2);

        assertThat(rig.poll(a.cq)).extracting(VerbsRig.Wc::status, VerbsRig.Wc::byteLength)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(WcStatus.SUCCESS, 2000));
        assertThat(rig.poll(b.cq)).isEmpty();
    }

    @Test
    void aDatagramWithoutAPostedReceiveIsLost() {
        Node a = new Node(rig, "rxe0", QKEY);
        Node b = new Node(rig, "rxe0", QKEY);
        AhHandle ah = ahVerbs.createAh(a.pd, rig.addressOf(a.ctx));
        sendDatagram(provider, a, ah, b.qp.qpNum(), QKEY, 10, 2);
        rig.receive(b.qp, 1, b.buf, 256, b.mr);
        assertThat(rig.poll(b.cq)).isEmpty();
    }

    @Test
    void aReceiveBufferWithoutRoomForTheGrhFailsTheReceive() {
        Node a = new Node(rig, "rxe0", QKEY);
        Node b = new Node(rig, "rxe0", QKEY);
        AhHandle ah = ahVerbs.createAh(a.pd, rig.addressOf(a.ctx));
        rig.receive(b.qp, 1, b.buf, 20, b.mr);
        sendDatagram(provider, a, ah, b.qp.qpNum(), QKEY, 10, 2);
        assertThat(rig.poll(b.cq)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.LOC_QP_OP_ERR);
    }

    @Test
    void multicastReachesAttachedQpsOnOtherRxeDevicesButIsNotLoopedBackToTheSendingOne() {
        Node sender = new Node(rig, "rxe0", QKEY);
        Node sameDevice = new Node(rig, "rxe0", QKEY);
        Node member1 = new Node(rig, "rxe1", QKEY);
        Node member2 = new Node(rig, "rxe1", QKEY);
        Node outsider = new Node(rig, "rxe1", QKEY);
        Gid group = VerbsRig.multicastGid(42);
        for (Node n : new Node[] {sameDevice, member1, member2}) {
            qpVerbs.attachMcast(n.qp, group, 0);
        }
        for (Node n : new Node[] {sameDevice, member1, member2, outsider}) {
            rig.receive(n.qp, 7, n.buf, 256, n.mr);
        }
        MemorySegment.copy("to all".getBytes(), 0, sender.buf, ValueLayout.JAVA_BYTE, 0, 6);
        AhHandle ah = ahVerbs.createAh(sender.pd, new AddressVector(0, 0, 0, 0, 1,
                GlobalRoute.to(group, 0)));

        sendDatagram(provider, sender, ah, 0xffffff, QKEY, 6, 8);

        for (Node n : new Node[] {member1, member2}) {
            assertThat(rig.poll(n.cq)).extracting(VerbsRig.Wc::status, VerbsRig.Wc::sourceQp)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(WcStatus.SUCCESS, sender.qp.qpNum()));
            assertThat(VerbsRig.read(n.buf, 40, 6)).isEqualTo("to all");
            assertThat(Gid.of(n.buf.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE))).isEqualTo(group);
        }
        assertThat(rig.poll(sameDevice.cq)).as("rxe does not loop multicast back to its own netdev").isEmpty();
        assertThat(rig.poll(outsider.cq)).isEmpty();
    }

    @Test
    void anHcaLoopsMulticastBackToItsOwnMembers() {
        try (VerbsRig hca = new VerbsRig(DeviceProfile.mlx5("mlx5_0"))) {
            Node sender = new Node(hca, "mlx5_0", QKEY);
            Node member = new Node(hca, "mlx5_0", QKEY);
            Gid group = VerbsRig.multicastGid(9);
            hca.provider.queuePairVerbs().attachMcast(member.qp, group, 0);
            hca.receive(member.qp, 1, member.buf, 256, member.mr);
            AhHandle ah = hca.provider.addressHandleVerbs().createAh(sender.pd, new AddressVector(0, 0, 0, 0, 1,
                    GlobalRoute.to(group, 0)));

            sendDatagram(hca.provider, sender, ah, 0xffffff, QKEY, 4, 2);

            assertThat(hca.poll(member.cq)).extracting(VerbsRig.Wc::status, VerbsRig.Wc::byteLength)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(WcStatus.SUCCESS, 44));
        }
    }

    @Test
    void infinibandDatagramsWithoutGrhLeaveTheFirstFortyBytesAlone() {
        try (VerbsRig hca = new VerbsRig(DeviceProfile.mlx5Infiniband("mlx5_0"),
                DeviceProfile.mlx5Infiniband("mlx5_1"))) {
            Node a = new Node(hca, "mlx5_0", QKEY);
            Node b = new Node(hca, "mlx5_1", QKEY);
            b.buf.asSlice(0, 40).fill((byte) 0x5a);
            MemorySegment.copy("ib".getBytes(), 0, a.buf, ValueLayout.JAVA_BYTE, 0, 2);
            AhHandle ah = hca.provider.addressHandleVerbs().createAh(a.pd, hca.addressOf(b.ctx));
            hca.receive(b.qp, 1, b.buf, 256, b.mr);

            sendDatagram(hca.provider, a, ah, b.qp.qpNum(), QKEY, 2, 2);

            assertThat(hca.poll(b.cq)).singleElement().satisfies(wc -> {
                assertThat(wc.byteLength()).isEqualTo(42);
                assertThat(wc.flags() & WcFlag.GRH).isZero();
            });
            assertThat(b.buf.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x5a);
            assertThat(VerbsRig.read(b.buf, 40, 2)).isEqualTo("ib");
        }
    }
}
