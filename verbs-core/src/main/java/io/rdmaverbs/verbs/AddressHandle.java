package io.rdmaverbs.verbs;

import java.util.List;
import java.util.Map;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/** An address handle ({@code struct ibv_ah}) for UD sends; a live AH keeps its PD busy. */
public final class AddressHandle extends VerbsResource {

    final AhHandle handle;
    private final VerbsProvider provider;
    private final ProtectionDomain pd;
    private final AddressVector address;

    AddressHandle(ProtectionDomain pd, AhHandle handle, AddressVector address, @Nullable String name) {
        super(pd.verbs, ResourceKind.ADDRESS_HANDLE, List.of(pd), name);
        this.handle = handle;
        this.provider = pd.verbs.provider();
        this.pd = pd;
        this.address = address;
    }

    @Override
    public DeviceContext context() {
        return pd.context();
    }

    public AddressVector address() {
        return address;
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("port", address.portNumber());
        m.put("destination", address.globalRoute() != null ? address.globalRoute().destinationGid().toString()
                : "lid " + address.destinationLid());
        return m;
    }

    @Override
    void release() {
        provider.addressHandleVerbs().destroyAh(handle);
    }
}
