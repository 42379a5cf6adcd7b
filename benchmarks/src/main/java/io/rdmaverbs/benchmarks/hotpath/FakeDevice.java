package io.rdmaverbs.benchmarks.hotpath;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

import io.rdmaverbs.benchmarks.CpuModel;
import io.rdmaverbs.benchmarks.NativeFixtures;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveBatch;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendBatch;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.WorkRequestChain;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The do-nothing device {@code fake0} of {@code libfakeverbs.so}, opened by the project's own
 * {@link NativeVerbsProvider} exactly as a real libibverbs would be, with one CQ, QP and MR made
 * twice: through the model ({@link Verbs}, for {@link ApiCalls}) and through the provider SPI (for
 * {@link ProviderCalls}). {@link CLoop} and {@link RawDowncall} use the model's CQ and QP by address.
 *
 * <p>Not final: JMH subclasses its state classes.
 */
@State(Scope.Thread)
public class FakeDevice {

    static final int CQ_ENTRIES = 256;
    static final int MESSAGE = 64;
    private static final QpCapabilities CAPABILITIES = QpCapabilities.of(64, 64);

    NativeVerbsProvider provider;
    Verbs verbs;

    // The model, as an application uses it.
    CompletionQueue cq;
    QueuePair qp;
    MemoryRegion mr;
    SendRequest send;
    ReceiveRequest receive;
    /** {@link BatchCalls#CHAIN} one-SGE SENDs and receives of {@value #MESSAGE} bytes, built once. */
    SendBatch sendChain;
    ReceiveBatch receiveChain;
    /** The next id a refill gives a receive (BatchCalls.apiRecvChainRefilled). */
    long nextWrId;
    WorkCompletions one;
    WorkCompletions sixteen;

    // The provider SPI under it, on a context of its own; the data-path groups kept as the model keeps them.
    CompletionVerbs cqVerbs;
    QueuePairVerbs qpVerbs;
    ContextHandle rawContext;
    PdHandle rawPd;
    CqHandle rawCq;
    QpHandle rawQp;
    SendWr rawSend;
    RecvWr rawReceive;
    WorkRequestChain<SendWr> rawSendChain;
    WorkRequestChain<RecvWr> rawRecvChain;
    WorkCompletions rawOne;
    WorkCompletions rawSixteen;

    // The model's C objects by address, for the C loops and the raw downcalls.
    MemorySegment cqPointer;
    MemorySegment qpPointer;

    @Setup(Level.Trial)
    public void open() {
        // In every fork's output: the figures are the CPU's (issue 20 measured 1.2-3x apart between two).
        System.out.println("# cpu: " + CpuModel.name());
        provider = NativeVerbsProvider.load(NativeFixtures.file("libfakeverbs.so"));
        verbs = Verbs.using(provider);
        cqVerbs = provider.completionVerbs();
        qpVerbs = provider.queuePairVerbs();

        // SPI objects first: the model's CQ and QP must be the fake's last ones.
        rawContext = provider.deviceVerbs().openDevice(verbs.findDevice("fake0"));
        rawPd = provider.domainVerbs().allocPd(rawContext);
        rawCq = provider.completionVerbs().createCq(rawContext, CQ_ENTRIES, null, 0);
        rawQp = qpVerbs.createQp(rawContext, new QpInitSpec(QpType.RC, rawPd, null, rawCq, rawCq, null,
                CAPABILITIES, true));

        DeviceContext context = verbs.openDevice("fake0");
        ProtectionDomain pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(CompletionQueueSpec.of(CQ_ENTRIES));
        cqPointer = HotPathLoops.lastCreated("fake_last_cq");
        qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPABILITIES));
        qpPointer = HotPathLoops.lastCreated("fake_last_qp");
        mr = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), "buffer");
        send = qp.newSendRequest(1).single(mr, 0, MESSAGE);
        receive = qp.newReceiveRequest(1).single(mr, 0, MESSAGE);
        one = cq.newWorkCompletions(1);
        sixteen = cq.newWorkCompletions(16);
        sendChain = qp.newSendBatch(BatchCalls.CHAIN, 1);
        receiveChain = qp.newReceiveBatch(BatchCalls.CHAIN, 1);
        for (int i = 0; i < BatchCalls.CHAIN; i++) {
            sendChain.add().wrId(i).single(mr, 0, MESSAGE);
            receiveChain.add().wrId(i).single(mr, 0, MESSAGE);
        }

        // The same request shapes on the SPI: one signaled SEND / one receive of 64 bytes.
        rawSend = provider.queuePairVerbs().newSendWr(1);
        rawSend.opcode(SendOpcode.SEND);
        rawSend.flags(SendFlag.SIGNALED);
        rawSend.sge(0, mr.address(), MESSAGE, mr.lkey());
        rawSend.sgeCount(1);
        rawReceive = provider.queuePairVerbs().newRecvWr(1);
        rawReceive.sge(0, mr.address(), MESSAGE, mr.lkey());
        rawReceive.sgeCount(1);
        rawSendChain = provider.queuePairVerbs().newSendChain(BatchCalls.CHAIN, 1);
        for (int i = 0; i < BatchCalls.CHAIN; i++) {
            SendWr wr = rawSendChain.request(i);
            wr.wrId(i);
            wr.opcode(SendOpcode.SEND);
            wr.flags(SendFlag.SIGNALED);
            wr.sge(0, mr.address(), MESSAGE, mr.lkey());
            wr.sgeCount(1);
        }
        rawSendChain.length(BatchCalls.CHAIN);
        rawRecvChain = provider.queuePairVerbs().newRecvChain(BatchCalls.CHAIN, 1);
        for (int i = 0; i < BatchCalls.CHAIN; i++) {
            RecvWr wr = rawRecvChain.request(i);
            wr.wrId(i);
            wr.sge(0, mr.address(), MESSAGE, mr.lkey());
            wr.sgeCount(1);
        }
        rawRecvChain.length(BatchCalls.CHAIN);
        rawOne = provider.completionVerbs().newWorkCompletions(1);
        rawSixteen = provider.completionVerbs().newWorkCompletions(16);
        if (Boolean.getBoolean("rdmaverbs.benchmarks.tenured")) {
            // Everything above moved to the old generation, where a long-running service's requests live: G1's
            // write barrier fences a reference stored into an old object across regions, not into a young one.
            System.gc();
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        one.close();
        sixteen.close();
        send.close();
        receive.close();
        sendChain.close();
        receiveChain.close();
        rawOne.close();
        rawSixteen.close();
        rawSend.close();
        rawReceive.close();
        rawSendChain.close();
        rawRecvChain.close();
        provider.queuePairVerbs().destroyQp(rawQp);
        provider.completionVerbs().destroyCq(rawCq);
        provider.domainVerbs().deallocPd(rawPd);
        provider.deviceVerbs().closeDevice(rawContext);
        verbs.close();
    }
}
