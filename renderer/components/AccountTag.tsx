// An order's account named beside it (its label), while more than one account is served: the
// inbox's rows and the Needs attention items show it alike. Nothing when the label is undefined
// (one account served: served-account.ts decides).
export function AccountTag({ label }: { label: string | undefined }) {
  if (label === undefined) return null;
  return (
    <span className="row-account">
      <span className="sr-only">Account </span>
      {label}
      <span className="sr-only">: </span>
    </span>
  );
}
