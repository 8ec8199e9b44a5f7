"""Objects that exist once per name (``D.m is D.m``, ``TV.T is T``)."""


class InternedByName:
    """One object per name in each class that sets ``_instances = {}``;
    pickled and copied as its name, so that it stays the same object."""

    _instances = None

    def __new__(cls, name):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"{cls.__name__} needs an identifier name, got "
                             f"{name!r}")
        existing = cls._instances.get(name)
        if existing is None:
            existing = super().__new__(cls)
            existing.name = name
            cls._instances[name] = existing
        return existing

    def __reduce__(self):
        return (type(self), (self.name,))
