package io.rdmaverbs.spring.boot.autoconfigure.resources;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.Cq;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.Device;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.Mr;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.Qp;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.Srq;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.Xrcd;
import io.rdmaverbs.spring.boot.autoconfigure.resources.DeviceLimitsExceededException.Violation;
import io.rdmaverbs.spring.boot.autoconfigure.resources.ResourceDeclarations.Declaration;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.SharedReceiveQueue;
import io.rdmaverbs.verbs.SharedReceiveQueueSpec;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.XrcDomain;
import io.rdmaverbs.verbs.XrcDomainSpec;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/**
 * Creates the declared resources, each from its parent beans and named by its key. Opening a device
 * checks every declaration on it against the device's limits first, so nothing is created on a device
 * that cannot hold what is declared.
 */
public final class DeclaredResources {

    private final Verbs verbs;
    private final VerbsProperties properties;

    public DeclaredResources(Verbs verbs, VerbsProperties properties) {
        this.verbs = verbs;
        this.properties = properties;
    }

    /**
     * Creates the resource {@code declaration} describes.
     *
     * @param parents the bean of each parent, by name
     */
    VerbsResource create(Declaration declaration, Function<String, VerbsResource> parents) {
        Device device = device(declaration.deviceKey());
        String key = declaration.key();
        return switch (declaration.kind()) {
            case DEVICE_CONTEXT -> openDevice(key, device);
            case PROTECTION_DOMAIN -> context(declaration, parents).allocateProtectionDomain(key);
            case XRC_DOMAIN -> {
                Xrcd x = device.xrcDomains().get(key);
                yield context(declaration, parents).openXrcDomain(new XrcDomainSpec(x.file(), -1, x.create(),
                        x.exclusive()), key);
            }
            case COMPLETION_CHANNEL -> context(declaration, parents).createCompletionChannel(key);
            case COMPLETION_QUEUE -> {
                Cq cq = device.completionQueues().get(key);
                CompletionChannel channel = parent(cq.channel(), parents, CompletionChannel.class);
                CompletionQueueSpec spec = new CompletionQueueSpec(cq.entries(), channel, cq.compVector());
                yield context(declaration, parents).createCompletionQueue(spec, key);
            }
            case SHARED_RECEIVE_QUEUE -> {
                Srq srq = device.sharedReceiveQueues().get(key);
                ProtectionDomain pd = required(srq.protectionDomain(), parents, ProtectionDomain.class);
                XrcDomain xrcd = parent(srq.xrcDomain(), parents, XrcDomain.class);
                SharedReceiveQueueSpec spec = xrcd == null
                        ? SharedReceiveQueueSpec.basic(srq.maxWr()).withLimit(srq.limit())
                        : SharedReceiveQueueSpec.xrc(xrcd, required(srq.completionQueue(), parents,
                                CompletionQueue.class), srq.maxWr());
                yield pd.createSharedReceiveQueue(spec.withMaxSge(srq.maxSge()), key);
            }
            case QUEUE_PAIR -> {
                Qp qp = device.queuePairs().get(key);
                if (qp.type() == QpType.XRC_RECV) {
                    yield required(qp.xrcDomain(), parents, XrcDomain.class).createReceiveQueuePair(key);
                }
                QueuePairSpec spec = new QueuePairSpec(qp.type(), required(qp.sendCq(), parents, CompletionQueue.class),
                        parent(qp.recvCq(), parents, CompletionQueue.class),
                        parent(qp.srq(), parents, SharedReceiveQueue.class),
                        new QpCapabilities(qp.maxSendWr(), qp.maxRecvWr(), qp.maxSendSge(), qp.maxRecvSge(),
                                qp.maxInlineData()),
                        qp.signalAll());
                yield required(qp.protectionDomain(), parents, ProtectionDomain.class).createQueuePair(spec, key);
            }
            case MEMORY_REGION -> {
                Mr mr = device.memoryRegions().get(key);
                yield required(mr.protectionDomain(), parents, ProtectionDomain.class)
                        .allocateMemory(mr.size().toBytes(), mr.access(), key);
            }
            default -> throw new IllegalArgumentException(declaration.kind() + " cannot be declared");
        };
    }

    private DeviceContext openDevice(String key, Device device) {
        DeviceInfo info = select(key, device);
        DeviceContext ctx = verbs.openDevice(info, key);
        try {
            List<String> needXrc = xrcDeclarations(key, device);
            if (!needXrc.isEmpty() && !ctx.supportsXrc()) {
                throw new XrcUnsupportedException(key, info.name(), needXrc, devicesWithXrc(info));
            }
            List<Violation> violations = DeviceLimits.violations(key, device, ctx.attributes());
            if (!violations.isEmpty()) {
                throw new DeviceLimitsExceededException(key, info.name(), violations);
            }
        } catch (RuntimeException e) {
            // Nothing was created on it yet, so the context closes without leaving anything behind.
            ctx.close();
            throw e;
        }
        return ctx;
    }

    private DeviceInfo select(String key, Device device) {
        String path = VerbsProperties.devicePath(key);
        // With neither a name nor a GUID, the key is the device name: devices.rxe0.protection-domains=...
        String name = device.name() != null ? device.name() : device.guid() == null ? key : null;
        Long guid = device.guid() == null ? null : DeviceInfo.parseGuid(device.guid());
        List<DeviceInfo> present = verbs.devices();
        for (DeviceInfo d : present) {
            if ((name == null || d.name().equals(name)) && (guid == null || d.guid() == guid)) {
                return d;
            }
        }
        String property = device.name() != null ? path + ".name" : device.guid() != null ? path + ".guid" : path;
        String wanted = name == null ? device.guid() : guid == null ? name : name + " with GUID " + device.guid();
        throw new UnknownDeviceException(key, property, wanted, verbs.provider().name(), present);
    }

    private static List<String> xrcDeclarations(String key, Device device) {
        String path = VerbsProperties.devicePath(key);
        List<String> out = new ArrayList<>();
        device.xrcDomains().keySet().forEach(k -> out.add(path + ".xrc-domains." + k));
        device.sharedReceiveQueues().forEach((k, srq) -> {
            if (srq.xrcDomain() != null) {
                out.add(path + ".shared-receive-queues." + k);
            }
        });
        device.queuePairs().forEach((k, qp) -> {
            if (qp.type().isXrc()) {
                out.add(path + ".queue-pairs." + k);
            }
        });
        return out;
    }

    /** The other devices that advertise XRC, asked of the provider directly (outside the graph). */
    private List<String> devicesWithXrc(DeviceInfo except) {
        VerbsProvider provider = verbs.provider();
        List<String> out = new ArrayList<>();
        for (DeviceInfo d : verbs.devices()) {
            if (d.equals(except)) {
                continue;
            }
            try {
                ContextHandle handle = provider.deviceVerbs().openDevice(d);
                try {
                    DeviceAttributes a = provider.deviceVerbs().queryDevice(handle);
                    if (a.supportsXrc()) {
                        out.add(d.name());
                    }
                } finally {
                    provider.deviceVerbs().closeDevice(handle);
                }
            } catch (RuntimeException e) {
                // A device that cannot be opened now is no suggestion to make.
            }
        }
        return out;
    }

    private Device device(String key) {
        Device device = properties.devices().get(key);
        if (device == null) {
            throw new IllegalStateException("no device '" + key + "' under " + VerbsProperties.PREFIX + ".devices");
        }
        return device;
    }

    private static DeviceContext context(Declaration declaration, Function<String, VerbsResource> parents) {
        return (DeviceContext) parents.apply(declaration.deviceKey());
    }

    private static <T extends VerbsResource> @Nullable T parent(@Nullable String name,
            Function<String, VerbsResource> parents, Class<T> type) {
        return name == null || name.isBlank() ? null : type.cast(parents.apply(name));
    }

    private static <T extends VerbsResource> T required(@Nullable String name, Function<String, VerbsResource> parents,
            Class<T> type) {
        T parent = parent(name, parents, type);
        if (parent == null) {
            throw new IllegalStateException("a required " + type.getSimpleName() + " reference is missing");
        }
        return parent;
    }
}
