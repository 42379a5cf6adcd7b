package io.rdmaverbs.benchmarks.scale;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

/**
 * A graph of {@code n} resources under one device context, in units of four that mirror an
 * application's connection: a protection domain, a CQ, an RC queue pair on both, and a memory
 * region of {@value #REGION} bytes in that domain. Every resource but the context has a parent
 * besides the context, so the graph has the edges a close plan must order, not just a flat list.
 */
public final class Population implements AutoCloseable {

    /** Resources per unit: PD, CQ, QP, MR. */
    public static final int UNIT = 4;
    static final int REGION = 64;
    private static final QpCapabilities CAPABILITIES = QpCapabilities.of(16, 16);

    private final Verbs verbs;
    private final DeviceContext context;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final int units;

    private Population(VerbsProvider provider, String device, int resources) {
        if (resources % UNIT != 0) {
            throw new IllegalArgumentException("resources come in units of " + UNIT + ", asked for " + resources);
        }
        this.units = resources / UNIT;
        this.verbs = Verbs.using(provider);
        this.context = verbs.openDevice(device);
        // One allocation for every region: the regions' memory is the application's, not the graph's.
        this.memory = arena.allocate((long) units * REGION, 4096);
    }

    /** An empty graph (only the context) on a simulated soft-RoCE device: rxe's limits hold 100k. */
    public static Population simulated(int resources) {
        return new Population(SimulatedProvider.of(DeviceProfile.rxe("sim0")), "sim0", resources);
    }

    /** An empty graph on {@code provider}'s {@code device}. */
    public static Population on(VerbsProvider provider, String device, int resources) {
        return new Population(provider, device, resources);
    }

    /** Creates the resources; returns this. */
    public Population populate() {
        createUnits(context, memory, units);
        return this;
    }

    /**
     * Creates {@code units} units under {@code context}, whoever opened it (the Spring benchmarks use
     * the starter's context bean), each region a slice of {@code memory}.
     *
     * @param memory at least {@code units * }{@link #regionBytes()} bytes, which must outlive the regions
     */
    public static void createUnits(DeviceContext context, MemorySegment memory, int units) {
        EnumSet<AccessFlag> access = EnumSet.of(AccessFlag.LOCAL_WRITE);
        for (int i = 0; i < units; i++) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(CompletionQueueSpec.of(16));
            pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPABILITIES));
            pd.registerMemory(memory.asSlice((long) i * REGION, REGION), access);
        }
    }

    /**
     * Creates the first {@code resources} resources of that sequence of units under {@code context}: whole
     * units, then a PD, a CQ and a QP of one more as far as they go.
     */
    public static void createResources(DeviceContext context, MemorySegment memory, int resources) {
        int units = resources / UNIT;
        createUnits(context, memory, units);
        int left = resources % UNIT;
        if (left > 0) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            if (left > 1) {
                CompletionQueue cq = context.createCompletionQueue(CompletionQueueSpec.of(16));
                if (left > 2) {
                    pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPABILITIES));
                }
            }
        }
    }

    /** The size of each unit's memory region. */
    public static int regionBytes() {
        return REGION;
    }

    public Verbs verbs() {
        return verbs;
    }

    /** Closes what is left (cascade) and frees the regions' memory. */
    @Override
    public void close() {
        verbs.close();
        arena.close();
    }
}
