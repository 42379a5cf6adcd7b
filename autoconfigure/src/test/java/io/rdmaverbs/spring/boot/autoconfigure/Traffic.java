package io.rdmaverbs.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;

import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.SendOpcode;

import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** Real traffic between two declared RC queue pairs of one device, on the simulated fabric. */
public final class Traffic {

    /**
     * One rxe device with two RC QPs, {@code a} and {@code b}, completing on {@code cq0} whose events go
     * to the channel {@code events}, and two memory regions to RDMA-write from and into.
     */
    public static final String[] DECLARATIONS = {
            "rdma.verbs.devices.main.name=rxe0",
            "rdma.verbs.devices.main.protection-domains=pd0",
            "rdma.verbs.devices.main.completion-channels=events",
            "rdma.verbs.devices.main.completion-queues.cq0.entries=64",
            "rdma.verbs.devices.main.completion-queues.cq0.channel=events",
            "rdma.verbs.devices.main.queue-pairs.a.protection-domain=pd0",
            "rdma.verbs.devices.main.queue-pairs.a.send-cq=cq0",
            "rdma.verbs.devices.main.queue-pairs.a.recv-cq=cq0",
            "rdma.verbs.devices.main.queue-pairs.b.protection-domain=pd0",
            "rdma.verbs.devices.main.queue-pairs.b.send-cq=cq0",
            "rdma.verbs.devices.main.queue-pairs.b.recv-cq=cq0",
            "rdma.verbs.devices.main.memory-regions.source.protection-domain=pd0",
            "rdma.verbs.devices.main.memory-regions.source.size=4KB",
            "rdma.verbs.devices.main.memory-regions.target.protection-domain=pd0",
            "rdma.verbs.devices.main.memory-regions.target.size=4KB",
            "rdma.verbs.devices.main.memory-regions.target.access=local-write,remote-write" };

    private Traffic() {
    }

    /**
     * Connects {@code a} and {@code b}, arms {@code cq0}, RDMA-writes from {@code a}, and takes the
     * completion event from the channel without acknowledging it: {@code cq0} then cannot be destroyed.
     */
    public static CompletionQueue leaveOneEventUnacknowledged(ApplicationContext context) {
        DeviceContext ctx = context.getBean("main", DeviceContext.class);
        QueuePair a = context.getBean("a", QueuePair.class);
        QueuePair b = context.getBean("b", QueuePair.class);
        CompletionQueue cq = context.getBean("cq0", CompletionQueue.class);
        CompletionChannel channel = context.getBean("events", CompletionChannel.class);
        MemoryRegion source = context.getBean("source", MemoryRegion.class);
        MemoryRegion target = context.getBean("target", MemoryRegion.class);
        AddressVector self = AddressVector.roce(1, ctx.queryGid(1, 0), 0);
        EnumSet<AccessFlag> access = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        a.toInit(1, access);
        b.toInit(1, access);
        a.toReadyToReceive(self, b.qpNum(), 0, Mtu.MTU_1024);
        b.toReadyToReceive(self, a.qpNum(), 0, Mtu.MTU_1024);
        a.toReadyToSend(0);
        b.toReadyToSend(0);
        cq.requestNotification(false);
        try (SendRequest write = a.newSendRequest(1).wrId(1).opcode(SendOpcode.RDMA_WRITE).single(source, 0, 64)
                .remote(target.address(), target.rkey())) {
            a.postSend(write);
        }
        Optional<CompletionQueue> event = channel.awaitEvent(Duration.ofSeconds(5));
        assertThat(event).as("a completion event on %s", channel).contains(cq);
        assertThat(cq.unacknowledgedEvents()).isEqualTo(1);
        return cq;
    }
}
