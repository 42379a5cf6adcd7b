package io.rdmaverbs.spring.boot.resources;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.rdmaverbs.spring.boot.observation.LifecycleObserver;
import io.rdmaverbs.spring.boot.observation.LifecycleStep;
import io.rdmaverbs.spring.boot.resources.Declarations.Cq;
import io.rdmaverbs.spring.boot.resources.Declarations.Device;
import io.rdmaverbs.spring.boot.resources.Declarations.Mr;
import io.rdmaverbs.spring.boot.resources.Declarations.Qp;
import io.rdmaverbs.spring.boot.resources.Declarations.Srq;
import io.rdmaverbs.spring.boot.resources.Declarations.Xrcd;
import io.rdmaverbs.spring.boot.resources.DeviceLimitsExceededException.Violation;
import io.rdmaverbs.spring.boot.resources.CheckedDeclarations.Declaration;
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
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Creates the declared resources, each from its parent beans and named by its key: the factory bean of
 * the definitions {@link DeclaredResourcesRegistrar} registers. Opening a device checks every declaration
 * on it against the device's limits first, so nothing is created on a device that cannot hold what is
 * declared.
 *
 * <p>The declarations are read again here, at startup, from the environment the application runs in.
 * In a plain JVM run they are those the registrar read; an application processed ahead of time has the
 * beans of its build-time declarations, and a startup that declares other keys fails here, saying so,
 * rather than running without them.
 */
public final class DeclaredResourceFactory {

    /** The bean name the resource definitions refer to as their factory bean. */
    public static final String BEAN_NAME = "rdmaVerbsDeclaredResources";

    private final Verbs verbs;
    private final Map<String, Device> devices;
    private final BeanFactory beanFactory;
    private final CheckedDeclarations declarations;
    private final LifecycleObserver observer;

    /**
     * @throws InvalidDeclarationException when the declared keys are not those the bean definitions were
     *     made for (an application processed ahead of time, started with other declarations)
     */
    public DeclaredResourceFactory(Verbs verbs, Map<String, Device> devices, ListableBeanFactory beanFactory) {
        this(verbs, devices, beanFactory, LifecycleObserver.NONE);
    }

    /**
     * @param observer observes the opening of each declared device, with its checks, as one {@link
     *     LifecycleStep#DEVICE_OPEN} step
     * @throws InvalidDeclarationException when the declared keys are not those the bean definitions were
     *     made for (an application processed ahead of time, started with other declarations)
     */
    public DeclaredResourceFactory(Verbs verbs, Map<String, Device> devices, ListableBeanFactory beanFactory,
            LifecycleObserver observer) {
        this.verbs = verbs;
        this.devices = devices;
        this.beanFactory = beanFactory;
        this.declarations = CheckedDeclarations.of(devices);
        this.observer = observer;
        List<String> undefined = declarations.inCreationOrder().stream()
                .filter(d -> !beanFactory.containsBeanDefinition(d.key())
                        || !beanFactory.isTypeMatch(d.key(), DeclaredResourcesRegistrar.type(d.kind())))
                .map(Declaration::property).toList();
        if (!undefined.isEmpty()) {
            throw new InvalidDeclarationException(undefined.getFirst(), "the application was processed ahead of "
                    + "time without " + String.join(", ", undefined) + ", so there is no bean for it",
                    "Declared resources (their keys and kinds) are fixed when the application is processed ahead "
                            + "of time (spring-boot:process-aot, native images): run that step again with these "
                            + "declarations, or start without -Dspring.aot.enabled=true");
        }
    }

    /**
     * Creates the resource declared under {@code key}, from its parents' beans.
     *
     * @throws InvalidDeclarationException when {@code key} is no longer declared (an application processed
     *     ahead of time, started without one of its build-time declarations)
     * @throws DeclaredResourceCreationException when a verb failed, with that {@link VerbsException} as cause
     */
    public VerbsResource create(String key) {
        Declaration declaration = declarations.find(key).orElseThrow(() -> new InvalidDeclarationException(
                Declarations.DEVICES, "'" + key + "' was declared when the application was "
                        + "processed ahead of time and has a bean, but is not declared now", "Declare '" + key
                        + "' again, or run the ahead-of-time processing again without it"));
        try {
            return create(declaration, name -> beanFactory.getBean(name, VerbsResource.class));
        } catch (VerbsException e) {
            throw new DeclaredResourceCreationException(key, declaration.property(),
                    CheckedDeclarations.label(declaration.kind()), e);
        }
    }

    /**
     * Creates the resource {@code declaration} describes.
     *
     * @param parents the bean of each parent, by name
     */
    private VerbsResource create(Declaration declaration, Function<String, VerbsResource> parents) {
        Device device = device(declaration.deviceKey());
        String key = declaration.key();
        VerbsResource created = switch (declaration.kind()) {            case DEVICE_CONTEXT -> openDevice(key, device);
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
        return created;
    }

    /**
     * Opens the device and checks it can hold what is declared on it. Selecting the device is not part of
     * the observed step: a device that is not there was never opened.
     */
    private DeviceContext openDevice(String key, Device device) {
        DeviceInfo info = select(key, device);
        return observer.observe(LifecycleStep.deviceOpen(info.name(), verbs.provider().name()),
                () -> openChecked(key, device, info), ctx -> "success");
    }

    private DeviceContext openChecked(String key, Device device, DeviceInfo info) {
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
        String path = Declarations.devicePath(key);
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
        String path = Declarations.devicePath(key);
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
        Device device = devices.get(key);
        if (device == null) {
            throw new IllegalStateException("no device '" + key + "' under " + Declarations.DEVICES);
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
