package io.rdmaverbs.spring.boot.resources;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.rdmaverbs.spring.boot.resources.Declarations.Device;
import io.rdmaverbs.spring.boot.resources.Declarations.Mr;
import io.rdmaverbs.spring.boot.resources.Declarations.Qp;
import io.rdmaverbs.spring.boot.resources.Declarations.Srq;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.QpType;

import org.jspecify.annotations.Nullable;

/**
 * The resources declared under {@code rdma.verbs.devices}, checked for structure before any bean is
 * defined: unique keys, complete declarations, references that resolve on the same device to a
 * resource of the right kind, and no cycles. Listed in creation order, parents first.
 */
public final class CheckedDeclarations {

    /**
     * One declared resource.
     *
     * @param key its key, which is its bean name and the name the resource graph reports
     * @param kind what it is
     * @param deviceKey the key of the device it is created on (its own key, for a device)
     * @param property where it is declared
     * @param references the resources it is created from, by name
     */
    public record Declaration(String key, ResourceKind kind, String deviceKey, String property,
            List<Reference> references) {

        public Declaration {
            references = List.copyOf(references);
        }

        /** The bean names it is created from: its device, then each resource it refers to. */
        public List<String> parents() {
            Set<String> out = new LinkedHashSet<>();
            if (kind != ResourceKind.DEVICE_CONTEXT) {
                out.add(deviceKey);
            }
            references.forEach(r -> out.add(r.name()));
            return List.copyOf(out);
        }
    }

    /**
     * A reference by name from one declaration to another.
     *
     * @param property the property holding the name
     * @param name the key referred to
     * @param kind the kind of resource the property must name
     */
    public record Reference(String property, String name, ResourceKind kind) {
    }

    private static final CheckedDeclarations NONE = new CheckedDeclarations(List.of());

    private final Map<String, Declaration> byKey = new LinkedHashMap<>();

    private CheckedDeclarations(List<Declaration> inCreationOrder) {
        inCreationOrder.forEach(d -> byKey.put(d.key(), d));
    }

    /**
     * Checks and orders the resources declared on {@code devices}.
     *
     * @throws DuplicateResourceKeyException when a key is used twice
     * @throws InvalidDeclarationException when a declaration is incomplete or inconsistent
     * @throws DanglingReferenceException when a reference does not resolve to a resource of its kind
     * @throws CyclicReferenceException when references form a cycle
     */
    public static CheckedDeclarations of(Map<String, Device> devices) {
        if (devices.isEmpty()) {
            return NONE;
        }
        Builder builder = new Builder();
        devices.forEach(builder::device);
        return new CheckedDeclarations(builder.check());
    }

    /** Every declaration, parents before the resources created from them. */
    public Collection<Declaration> inCreationOrder() {
        return byKey.values();
    }

    public Optional<Declaration> find(String key) {
        return Optional.ofNullable(byKey.get(key));
    }

    public boolean isEmpty() {
        return byKey.isEmpty();
    }

    /** The property under a device where resources of {@code kind} are declared, e.g. {@code queue-pairs}. */
    public static String group(ResourceKind kind) {
        return switch (kind) {
            case PROTECTION_DOMAIN -> "protection-domains";
            case XRC_DOMAIN -> "xrc-domains";
            case COMPLETION_CHANNEL -> "completion-channels";
            case COMPLETION_QUEUE -> "completion-queues";
            case SHARED_RECEIVE_QUEUE -> "shared-receive-queues";
            case QUEUE_PAIR -> "queue-pairs";
            case MEMORY_REGION -> "memory-regions";
            default -> "devices";
        };
    }

    /** A resource kind in words, as messages name it. */
    public static String label(ResourceKind kind) {
        return switch (kind) {
            case DEVICE_CONTEXT -> "device";
            case PROTECTION_DOMAIN -> "protection domain";
            case XRC_DOMAIN -> "XRC domain";
            case COMPLETION_CHANNEL -> "completion channel";
            case COMPLETION_QUEUE -> "completion queue";
            case SHARED_RECEIVE_QUEUE -> "shared receive queue";
            case QUEUE_PAIR -> "queue pair";
            case MEMORY_REGION -> "memory region";
            case ADDRESS_HANDLE -> "address handle";
            case MULTICAST_ATTACHMENT -> "multicast attachment";
            case XRC_RECEIVE_QP_REGISTRATION -> "XRC receive QP registration";
            case CM_EVENT_CHANNEL -> "CM event channel";
            case CM_ID -> "CM id";
            case CM_EVENT -> "CM event";
            case REMOTE_REGION -> "remote region";
        };
    }

    /** Collects the declarations of each device, then checks them as a whole. */
    private static final class Builder {

        /** Each key with every place it is declared. */
        private final Map<String, List<String>> places = new LinkedHashMap<>();
        private final Map<String, Declaration> declared = new LinkedHashMap<>();
        private final Map<String, Device> devices = new LinkedHashMap<>();

        void device(String deviceKey, Device device) {
            String path = Declarations.devicePath(deviceKey);
            devices.put(deviceKey, device);
            if (device.guid() != null && device.guid().isBlank()) {
                // Binding gives "" for `guid:` with nothing after it; selecting by it would fail later, unexplained.
                throw new InvalidDeclarationException(path + ".guid", path + ".guid is blank", "Remove "
                        + path + ".guid to select the device by name (or by its key), or write its node GUID as "
                        + "ibv_devices prints it (0002:c903:0001:2345)");
            }
            if (device.guid() != null) {
                try {
                    DeviceInfo.parseGuid(device.guid());
                } catch (IllegalArgumentException e) {
                    throw new InvalidDeclarationException(path + ".guid", "'" + device.guid()
                            + "' is not a node GUID", "Write the GUID as ibv_devices prints it: up to 16 hex digits, "
                            + "colons allowed (0002:c903:0001:2345), or select the device by name instead");
                }
            }
            add(deviceKey, ResourceKind.DEVICE_CONTEXT, deviceKey, path);
            for (int i = 0; i < device.protectionDomains().size(); i++) {
                add(device.protectionDomains().get(i), ResourceKind.PROTECTION_DOMAIN, deviceKey,
                        path + ".protection-domains[" + i + "]");
            }
            device.xrcDomains().forEach((k, xrcd) -> {
                String xrcdPath = path + ".xrc-domains." + k;
                if (xrcd.exclusive() && !xrcd.create()) {
                    throw new InvalidDeclarationException(xrcdPath + ".exclusive", xrcdPath + ".exclusive (O_EXCL) "
                            + "is set without create (O_CREAT): ibv_open_xrcd(3) defines O_EXCL only together with O_CREAT",
                            "Set " + xrcdPath + ".create to true to create the domain and fail if it exists, or "
                                    + "remove " + xrcdPath + ".exclusive to open an existing one");
                }
                add(k, ResourceKind.XRC_DOMAIN, deviceKey, xrcdPath);
            });
            for (int i = 0; i < device.completionChannels().size(); i++) {
                add(device.completionChannels().get(i), ResourceKind.COMPLETION_CHANNEL, deviceKey,
                        path + ".completion-channels[" + i + "]");
            }
            device.completionQueues().keySet().forEach(k -> add(k, ResourceKind.COMPLETION_QUEUE, deviceKey,
                    path + ".completion-queues." + k));
            device.sharedReceiveQueues().keySet().forEach(k -> add(k, ResourceKind.SHARED_RECEIVE_QUEUE, deviceKey,
                    path + ".shared-receive-queues." + k));
            device.queuePairs().keySet().forEach(k -> add(k, ResourceKind.QUEUE_PAIR, deviceKey,
                    path + ".queue-pairs." + k));
            device.memoryRegions().keySet().forEach(k -> add(k, ResourceKind.MEMORY_REGION, deviceKey,
                    path + ".memory-regions." + k));
        }

        private void add(String key, ResourceKind kind, String deviceKey, String property) {
            places.computeIfAbsent(key, k -> new ArrayList<>()).add(property);
            declared.putIfAbsent(key, new Declaration(key, kind, deviceKey, property, List.of()));
        }

        List<Declaration> check() {
            places.forEach((key, where) -> {
                if (where.size() > 1) {
                    throw new DuplicateResourceKeyException(key, where, false);
                }
            });
            Map<String, Declaration> withReferences = new LinkedHashMap<>();
            declared.values().forEach(d -> withReferences.put(d.key(),
                    new Declaration(d.key(), d.kind(), d.deviceKey(), d.property(), references(d))));
            for (Declaration d : withReferences.values()) {
                for (Reference r : d.references()) {
                    resolve(d, r, withReferences);
                }
            }
            List<Declaration> ordered = creationOrder(withReferences);
            for (Declaration d : ordered) {
                for (Reference r : d.references()) {
                    Declaration target = withReferences.get(r.name());
                    if (target.kind() != r.kind()) {
                        throw new DanglingReferenceException(d.deviceKey(), r.property(), r.name(), r.kind(),
                                names(d.deviceKey(), r.kind()), target.kind(), null);
                    }
                }
                checkSrqFeedsQp(d, withReferences);
            }
            return ordered;
        }

        private List<Reference> references(Declaration d) {
            Device device = devices.get(d.deviceKey());
            String p = d.property();
            List<Reference> refs = new ArrayList<>();
            switch (d.kind()) {
                case COMPLETION_QUEUE -> optional(refs, p + ".channel",
                        device.completionQueues().get(d.key()).channel(), ResourceKind.COMPLETION_CHANNEL);
                case SHARED_RECEIVE_QUEUE -> srqReferences(d, device.sharedReceiveQueues().get(d.key()), refs);
                case QUEUE_PAIR -> qpReferences(d, device.queuePairs().get(d.key()), refs);
                case MEMORY_REGION -> {
                    Mr mr = device.memoryRegions().get(d.key());
                    checkMemoryRegion(p, mr);
                    refs.add(required(d, ".protection-domain", mr.protectionDomain(), ResourceKind.PROTECTION_DOMAIN,
                            "a memory region is registered in a protection domain"));
                }
                default -> {
                }
            }
            return refs;
        }

        private void srqReferences(Declaration d, Srq srq, List<Reference> refs) {
            String p = d.property();
            refs.add(required(d, ".protection-domain", srq.protectionDomain(), ResourceKind.PROTECTION_DOMAIN,
                    "a shared receive queue is created in a protection domain"));
            if (present(srq.xrcDomain())) {
                refs.add(new Reference(p + ".xrc-domain", srq.xrcDomain(), ResourceKind.XRC_DOMAIN));
                refs.add(required(d, ".completion-queue", srq.completionQueue(), ResourceKind.COMPLETION_QUEUE,
                        "an XRC shared receive queue completes on its own completion queue"));
                if (srq.limit() != 0) {
                    throw new InvalidDeclarationException(p + ".limit", "the SRQ limit applies to basic shared "
                            + "receive queues only, and this one is an XRC SRQ (xrc-domain is set)",
                            "Remove " + p + ".limit, or remove xrc-domain and completion-queue to make it a basic SRQ");
                }
            } else if (present(srq.completionQueue())) {
                throw new InvalidDeclarationException(p + ".completion-queue", "only an XRC shared receive queue "
                        + "has a completion queue of its own, and this one has no xrc-domain", "Remove "
                        + p + ".completion-queue, or set " + p + ".xrc-domain to one of the XRC domains of device '"
                        + d.deviceKey() + "': " + names(d.deviceKey(), ResourceKind.XRC_DOMAIN));
            }
        }

        /**
         * What would fail at the create, said by property: a size the allocation refuses, and the access
         * {@code ibv_reg_mr(3)} answers EINVAL to (remote write or atomic without local write, which the
         * resource graph refuses as well, but by flags, not by property).
         */
        private static void checkMemoryRegion(String p, Mr mr) {
            if (mr.size() != null && mr.size().toBytes() <= 0) {
                throw new InvalidDeclarationException(p + ".size", p + ".size is " + mr.size().toBytes()
                        + " bytes, but a memory region registers at least one byte", "Set " + p + ".size to the "
                                + "number of bytes to allocate and register, e.g. 64KB");
            }
            Set<AccessFlag> access = EnumSet.noneOf(AccessFlag.class);
            if (mr.access() != null) {
                access.addAll(mr.access());
            }
            List<String> needLocalWrite = access.stream()
                    .filter(f -> f == AccessFlag.REMOTE_WRITE || f == AccessFlag.REMOTE_ATOMIC)
                    .map(Builder::kebab).toList();
            if (!needLocalWrite.isEmpty() && !access.contains(AccessFlag.LOCAL_WRITE)) {
                Set<AccessFlag> fixed = EnumSet.copyOf(access);
                fixed.add(AccessFlag.LOCAL_WRITE);
                throw new InvalidDeclarationException(p + ".access", p + ".access is "
                        + access.stream().map(Builder::kebab).toList() + ", but " + String.join(" and ", needLocalWrite)
                        + (needLocalWrite.size() == 1 ? " requires" : " require")
                        + " local-write as well (ibv_reg_mr(3) answers EINVAL)", "Add local-write to " + p
                                + ".access (access: " + fixed.stream().map(Builder::kebab).toList() + ")");
            }
        }

        private void qpReferences(Declaration d, Qp qp, List<Reference> refs) {
            String p = d.property();
            QpType type = qp.type();
            String what = "a queue pair of type " + kebab(type);
            if (type == QpType.XRC_RECV) {
                refs.add(required(d, ".xrc-domain", qp.xrcDomain(), ResourceKind.XRC_DOMAIN,
                        what + " is created in an XRC domain"));
                forbid(d, ".protection-domain", qp.protectionDomain(), what + " belongs to its XRC domain, "
                        + "not to a protection domain");
                forbid(d, ".send-cq", qp.sendCq(), what + " has no send queue");
                forbid(d, ".recv-cq", qp.recvCq(), what + " receives through the XRC SRQs of its domain");
                forbid(d, ".srq", qp.srq(), what + " receives through the XRC SRQs of its domain");
                return;
            }
            refs.add(required(d, ".protection-domain", qp.protectionDomain(), ResourceKind.PROTECTION_DOMAIN,
                    what + " is created in a protection domain"));
            refs.add(required(d, ".send-cq", qp.sendCq(), ResourceKind.COMPLETION_QUEUE,
                    what + " needs a completion queue for its send queue"));
            forbid(d, ".xrc-domain", qp.xrcDomain(), "only xrc-recv queue pairs are created in an XRC domain");
            if (type == QpType.XRC_SEND) {
                forbid(d, ".recv-cq", qp.recvCq(), what + " has no receive queue");
                forbid(d, ".srq", qp.srq(), what + " has no receive queue");
                return;
            }
            refs.add(required(d, ".recv-cq", qp.recvCq(), ResourceKind.COMPLETION_QUEUE,
                    what + " needs a completion queue for its receive queue"));
            optional(refs, p + ".srq", qp.srq(), ResourceKind.SHARED_RECEIVE_QUEUE);
        }

        private void checkSrqFeedsQp(Declaration d, Map<String, Declaration> all) {
            if (d.kind() != ResourceKind.QUEUE_PAIR) {
                return;
            }
            for (Reference r : d.references()) {
                if (r.kind() == ResourceKind.SHARED_RECEIVE_QUEUE) {
                    Srq srq = devices.get(d.deviceKey()).sharedReceiveQueues().get(r.name());
                    if (present(srq.xrcDomain())) {
                        throw new InvalidDeclarationException(r.property(), "'" + r.name() + "' is an XRC shared "
                                + "receive queue (" + all.get(r.name()).property() + ".xrc-domain is set), and only a "
                                + "basic SRQ can feed a queue pair", "Point " + r.property() + " at a basic shared "
                                + "receive queue, or remove it to give the queue pair its own receive queue");
                    }
                }
            }
        }

        private Reference required(Declaration d, String suffix, @Nullable String name, ResourceKind kind,
                String why) {
            String property = d.property() + suffix;
            if (!present(name)) {
                throw new InvalidDeclarationException(property, property + " is not set: " + why,
                        "Set " + property + " to one of the " + label(kind) + "s of device '" + d.deviceKey() + "': "
                                + names(d.deviceKey(), kind));
            }
            return new Reference(property, name, kind);
        }

        private static void forbid(Declaration d, String suffix, @Nullable String name, String why) {
            if (present(name)) {
                String property = d.property() + suffix;
                throw new InvalidDeclarationException(property, property + " is set, but " + why,
                        "Remove " + property + ", or change " + d.property() + ".type");
            }
        }

        private static void optional(List<Reference> refs, String property, @Nullable String name,
                ResourceKind kind) {
            if (present(name)) {
                refs.add(new Reference(property, name, kind));
            }
        }

        private void resolve(Declaration from, Reference r, Map<String, Declaration> all) {
            Declaration target = all.get(r.name());
            if (target != null && target.deviceKey().equals(from.deviceKey())) {
                return;
            }
            throw new DanglingReferenceException(from.deviceKey(), r.property(), r.name(), r.kind(),
                    names(from.deviceKey(), r.kind()), null, target == null ? null : target.deviceKey());
        }

        /** Parents first (a depth-first post-order), failing on the first cycle. */
        private static List<Declaration> creationOrder(Map<String, Declaration> all) {
            LinkedHashSet<Declaration> done = new LinkedHashSet<>();
            for (Declaration d : all.values()) {
                visit(d, all, new ArrayList<>(), new ArrayList<>(), new HashSet<>(), done);
            }
            return List.copyOf(done);
        }

        private static void visit(Declaration d, Map<String, Declaration> all, List<String> path,
                List<String> viaProperties, Set<String> onPath, Set<Declaration> done) {
            if (done.contains(d)) {
                return;
            }
            if (!onPath.add(d.key())) {
                int start = path.indexOf(d.key());
                List<String> cycle = new ArrayList<>(path.subList(start, path.size()));
                cycle.add(d.key());
                throw new CyclicReferenceException(cycle, viaProperties.subList(start, viaProperties.size()));
            }
            path.add(d.key());
            for (Reference r : d.references()) {
                viaProperties.add(r.property());
                visit(all.get(r.name()), all, path, viaProperties, onPath, done);
                viaProperties.removeLast();
            }
            path.removeLast();
            onPath.remove(d.key());
            done.add(d);
        }

        private List<String> names(String deviceKey, ResourceKind kind) {
            return declared.values().stream()
                    .filter(d -> d.deviceKey().equals(deviceKey) && d.kind() == kind)
                    .map(Declaration::key)
                    .toList();
        }

        private static boolean present(@Nullable String name) {
            return name != null && !name.isBlank();
        }

        /** A constant as the properties spell it: {@code XRC_SEND} is {@code xrc-send}. */
        private static String kebab(Enum<?> constant) {
            return constant.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }
}
