//===- ScopeIndex.cpp - Handle records by isolated scope ------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "ScopeIndex.h"
#include "HandleRecords.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace mlir::tracking::detail;

Operation *mlir::tracking::detail::bodyScopeOf(Operation *op) {
  if (!op->getParentOp() || op->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return op;
  return scopeOfOp(op);
}

Operation *mlir::tracking::detail::scopeOfOp(Operation *op) {
  if (!op)
    return nullptr;
  Operation *parent = op->getParentOp();
  return parent ? bodyScopeOf(parent) : nullptr;
}

void ScopeIndex::clear() {
  for (auto &entry : scopes)
    delete entry.second;
  scopes.clear();
  byId.assign(1, nullptr);
  freeIds.clear();
}

ScopeInfo *ScopeIndex::createScope(Operation *op) {
  uint32_t id;
  if (!freeIds.empty()) {
    id = freeIds.back();
    freeIds.pop_back();
  } else {
    id = byId.size();
    byId.push_back(nullptr);
  }
  auto *info = new ScopeInfo(op, id);
  byId[id] = info;
  return info;
}

void ScopeIndex::destroyScope(ScopeInfo *info) {
  byId[info->id] = nullptr;
  freeIds.push_back(info->id);
  delete info;
}

SmallVector<HandleRecord *> ScopeIndex::recordsOf(const ScopeInfo &info) const {
  SmallVector<HandleRecord *> records;
  for (HandleRecord *record = pool.recordOf(info.records); record;
       record = pool.recordOf(record->scopeNext))
    records.push_back(record);
  return records;
}

ScopeInfo *ScopeIndex::ensureScope(Operation *scope) {
  if (ScopeInfo *info = findScope(scope))
    return info;
  SmallVector<Operation *> missing;
  for (Operation *current = scope; !scopes.count(current);
       current = scopeOfOp(current)) {
    missing.push_back(current);
    if (!current)
      break;
  }
  // Outermost first: each parent exists when its child is added.
  for (Operation *current : llvm::reverse(missing)) {
    Operation *parent = current ? scopeOfOp(current) : nullptr;
    if (current)
      onNewScope(current);
    ScopeInfo *info = createScope(current);
    info->parent = parent;
    scopes[current] = info;
    if (current)
      scopes[parent]->children.insert(current);
  }
  return scopes[scope];
}

void ScopeIndex::pruneScope(Operation *scope) {
  while (true) {
    auto it = scopes.find(scope);
    if (it == scopes.end() || it->second->records ||
        !it->second->children.empty())
      return;
    Operation *parent = it->second->parent;
    destroyScope(it->second);
    scopes.erase(it);
    if (!scope)
      return;
    if (ScopeInfo *parentInfo = findScope(parent))
      parentInfo->children.erase(scope);
    scope = parent;
  }
}

void ScopeIndex::eraseScope(Operation *scope) {
  auto it = scopes.find(scope);
  if (it == scopes.end())
    return;
  destroyScope(it->second);
  scopes.erase(it);
}

void ScopeIndex::reparentScope(Operation *scope, Operation *newParent) {
  ScopeInfo *info = findScope(scope);
  Operation *oldParent = info->parent;
  if (oldParent == newParent)
    return;
  ensureScope(newParent)->children.insert(scope);
  info->parent = newParent;
  if (ScopeInfo *oldInfo = findScope(oldParent))
    oldInfo->children.erase(scope);
  pruneScope(oldParent);
}

void ScopeIndex::linkIntoScope(HandleRecord *record, ScopeInfo *info) {
  uint32_t id = pool.idOf(record);
  record->scope = info->id;
  record->scopePrev = 0;
  record->scopeNext = info->records;
  if (HandleRecord *next = pool.recordOf(info->records))
    next->scopePrev = id;
  info->records = id;
}

void ScopeIndex::setScope(HandleRecord *record, Operation *scope,
                          bool indexed) {
  if (indexed && infoOf(record)->op == scope)
    return;
  ScopeInfo *old = indexed ? infoOf(record) : nullptr;
  ScopeInfo *info = ensureScope(scope);
  if (old) {
    unlinkFromScope(record, old);
    linkIntoScope(record, info);
    pruneScope(old->op);
    return;
  }
  linkIntoScope(record, info);
}

void ScopeIndex::moveBetweenScopes(
    Operation *oldScope, Operation *newScope,
    llvm::function_ref<bool(Operation *)> isInside) {
  if (oldScope == newScope)
    return;
  ScopeInfo *oldInfo = findScope(oldScope);
  if (!oldInfo)
    return;
  SmallVector<HandleRecord *> records = recordsOf(*oldInfo);
  auto children = llvm::to_vector(oldInfo->children);
  for (HandleRecord *record : records)
    if (isInside(record->op))
      setScope(record, newScope, record->mapped);
  for (Operation *child : children)
    if (isInside(child))
      reparentScope(child, newScope);
}

SmallVector<HandleRecord *> ScopeIndex::collectNested(Operation *anchor) const {
  SmallVector<HandleRecord *> records;
  SmallVector<Operation *> subtree;
  Operation *parent;
  collectSubtree(anchor, records, subtree, parent);
  return records;
}

bool ScopeIndex::collectSubtree(Operation *op,
                                SmallVectorImpl<HandleRecord *> &records,
                                SmallVectorImpl<Operation *> &subtree,
                                Operation *&parent) const {
  ScopeInfo *scopeInfo = findScope(op);
  if (!scopeInfo)
    return false;
  parent = scopeInfo->parent;
  subtree.push_back(op);
  for (size_t i = 0; i < subtree.size(); ++i) {
    ScopeInfo *nested = findScope(subtree[i]);
    if (!nested)
      continue;
    for (HandleRecord *record = pool.recordOf(nested->records); record;
         record = pool.recordOf(record->scopeNext))
      records.push_back(record);
    subtree.append(nested->children.begin(), nested->children.end());
  }
  return true;
}

void ScopeIndex::eraseSubtree(Operation *op, ArrayRef<Operation *> subtree,
                              Operation *parent) {
  for (Operation *scope : llvm::reverse(subtree))
    eraseScope(scope);
  if (ScopeInfo *parentInfo = findScope(parent))
    parentInfo->children.erase(op);
  pruneScope(parent);
}
