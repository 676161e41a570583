/** A form-level error (the action's message), announced when it appears. Nothing when there is none. */
export function FormError({ id, errors }: { id?: string; errors?: string[] }) {
  if (!errors?.length) return null;
  return (
    <p id={id} role="alert" className="rounded bg-red-50 px-3 py-2 text-sm text-red-700">
      {errors[0]}
    </p>
  );
}
